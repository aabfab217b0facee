"""End to end with a real Celery worker: API uploads -> processing -> a dedup run -> streaming."""

from __future__ import annotations

import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.dedup.conftest import STORY_0, STORY_1, STORY_5
from tests.documents.factories import wait_until_finished


def poll(fetch, done, *, within_seconds: float = 240):
    """Call `fetch` until `done(result)`; returns the last result."""
    deadline = time.monotonic() + within_seconds
    while True:
        result = fetch()
        if done(result) or time.monotonic() > deadline:
            return result
        time.sleep(0.5)


@pytest.mark.django_db(transaction=True)
def test_a_run_and_a_streamed_document_through_a_real_worker(celery_worker, api, reprints):
    collection = api.post("/api/collections/", {"name": "e2e dedup"}, format="json").json()["id"]

    def upload(name: str) -> int:
        data = (reprints / name).read_bytes()
        url = f"/api/collections/{collection}/documents/"
        response = api.post(url, {"file": SimpleUploadedFile(name, data)}, format="multipart")
        assert response.status_code == 201, response.content
        return response.json()["id"]

    first = {name: upload(name) for name in (*STORY_0, *STORY_1[:2], STORY_5[0])}
    finished = wait_until_finished(lambda i: api.get(f"/api/documents/{i}/").json(), first.values())
    assert {body["status"] for body in finished.values()} == {"done"}, finished

    created = api.post(f"/api/collections/{collection}/dedup/", {}, format="json").json()
    run = poll(
        lambda: api.get(f"/api/dedup/{created['id']}/").json(),
        lambda body: body["status"] in ("done", "failed"),
    )
    assert (run["status"], run["progress"], run["method"]) == ("done", 100, "periods"), run
    groups = {frozenset(m["document"] for m in c["members"]) for c in run["clusters"]}
    assert frozenset(first[n] for n in STORY_0) in groups
    assert frozenset(first[n] for n in STORY_1[:2]) in groups

    # What the documents pipeline does once a document is done (see docs/dedup.md).
    late = upload(STORY_1[2])
    wait_until_finished(lambda i: api.get(f"/api/documents/{i}/").json(), [late])
    from dedup.tasks import dedup_assign_document

    dedup_assign_document.delay(late)

    def members_with_late(body):
        return [c for c in body["clusters"] if late in {m["document"] for m in c["members"]}]

    after = poll(lambda: api.get(f"/api/dedup/{run['id']}/").json(), members_with_late)
    (cluster,) = members_with_late(after)
    assert {m["document"] for m in cluster["members"]} == {first[n] for n in STORY_1[:2]} | {late}
