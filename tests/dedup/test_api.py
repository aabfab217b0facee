"""The JSON API: start a run, read its clusters; token auth, ownership, unknown methods."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from dedup import services
from dedup.models import DedupRun
from documents.models import Document
from tests.dedup.conftest import STORY_0, STORY_5
from tests.documents.factories import intercept_task

pytestmark = pytest.mark.django_db


def test_it_starts_a_run(api, collection, django_capture_on_commit_callbacks, monkeypatch):
    queued: list[int] = []
    intercept_task(monkeypatch, "dedup.run", queued.append)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            f"/api/collections/{collection.id}/dedup/", {"method": "ddw"}, format="json"
        )
    assert response.status_code == 201
    run = DedupRun.objects.get()
    assert response.json() == {"id": run.id, "status": "queued"}
    assert (run.method, queued) == ("ddw", [run.id])


def test_the_method_defaults_to_periods(api, collection, monkeypatch):
    intercept_task(monkeypatch, "dedup.run", lambda run_id: None)
    response = api.post(f"/api/collections/{collection.id}/dedup/", {}, format="json")
    assert response.status_code == 201
    assert DedupRun.objects.get().method == "periods"


def test_an_unknown_method_is_a_400_listing_the_valid_ones(api, collection):
    response = api.post(f"/api/collections/{collection.id}/dedup/", {"method": "x"}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["methods"] == [
        "simhash",
        "periods",
        "ddw",
        "dwdcs",
        "minhash",
        "imatch",
        "spotsigs",
    ]
    assert "choose one of" in body["method"][0]
    assert not DedupRun.objects.exists()


def test_it_returns_the_clusters_of_a_run(owner, collection, add_pages):
    pages = add_pages(*STORY_0, STORY_5[0])
    Document.objects.filter(id=pages[STORY_0[1]].id).update(folder="class-b")
    run = services.dedup_run_start(collection=collection, method="periods")
    services.dedup_run_execute(run_id=run.id)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=owner).key}")

    body = client.get(f"/api/dedup/{run.id}/").json()

    assert {k: body[k] for k in ("id", "method", "status", "progress", "error")} == {
        "id": run.id,
        "method": "periods",
        "status": "done",
        "progress": 100,
        "error": "",
    }
    first, other = body["clusters"]
    a, b = (pages[name].id for name in STORY_0)
    assert first["centre"] == a
    assert [(m["document"], m["title"], m["relation"]) for m in first["members"]] == [
        (a, "doc00001.txt", "centre"),
        (b, "class-b/doc00002.txt", "duplicate"),  # the folder tells same names apart
    ]
    assert 0 < first["members"][1]["score"] < 1
    assert [m["document"] for m in other["members"]] == [pages[STORY_5[0]].id]
    listed = client.get(f"/api/collections/{collection.id}/dedup/").json()
    assert [r["id"] for r in listed] == [run.id]


def test_it_validates_ownership(owner, stranger, collection, monkeypatch):
    intercept_task(monkeypatch, "dedup.run", lambda run_id: None)
    run = services.dedup_run_start(collection=collection, method="periods")
    client = APIClient()
    client.force_authenticate(stranger)
    assert client.get(f"/api/dedup/{run.id}/").status_code == 404
    assert client.get(f"/api/collections/{collection.id}/dedup/").status_code == 404
    response = client.post(f"/api/collections/{collection.id}/dedup/", {}, format="json")
    assert response.status_code == 404


def test_it_requires_authentication(anonymous_api, collection):
    assert anonymous_api.post(f"/api/collections/{collection.id}/dedup/", {}).status_code == 401
