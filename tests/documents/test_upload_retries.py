"""Uploads and broker outages: an upload is accepted while Redis is down (its message waits in
the outbox), and an `Idempotency-Key` makes a retried upload return the first answer."""

from __future__ import annotations

import io
import zipfile
from datetime import timedelta

import kombu.exceptions
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from rest_framework.test import APIClient

from core import queue
from core.models import OutboxMessage
from documents import services
from documents.models import Document, UploadKey
from documents.task_names import PROCESS_TASK
from tests.documents.factories import WATER

pytestmark = pytest.mark.django_db


@pytest.fixture
def collection(owner):
    return services.collection_create(owner=owner, name="Essays")


@pytest.fixture
def sent(monkeypatch) -> list[tuple]:
    """The messages the broker took (`core.queue.send` replaced)."""
    messages: list[tuple] = []
    monkeypatch.setattr(queue, "send", lambda name, args, options: messages.append((name, args)))
    return messages


def post_file(client, collection_id, name, data, key=None):
    headers = {"Idempotency-Key": key} if key is not None else {}
    return client.post(
        f"/api/collections/{collection_id}/documents/",
        {"file": SimpleUploadedFile(name, data, content_type="text/plain")},
        format="multipart",
        headers=headers,
    )


def test_an_upload_while_the_broker_is_down_is_accepted_and_sent_when_it_is_back(
    api, browser, collection, monkeypatch, django_capture_on_commit_callbacks
):
    def down(name, args, options):
        raise kombu.exceptions.OperationalError("Error 111 connecting to 127.0.0.1:63790.")

    monkeypatch.setattr(queue, "send", down)
    with django_capture_on_commit_callbacks(execute=True):
        response = post_file(api, collection.id, "essay.txt", WATER.encode())
        page = browser.post(
            f"/collections/{collection.id}/upload/",
            {"files": [SimpleUploadedFile("web.txt", WATER.encode())]},
        )
    assert response.status_code == 201 and response.json()["status"] == "queued"
    assert page.status_code == 302
    ids = set(Document.objects.values_list("id", flat=True))
    assert len(ids) == 2
    assert {m.args[0] for m in OutboxMessage.objects.filter(name=PROCESS_TASK)} == ids

    taken: list[tuple] = []
    monkeypatch.setattr(queue, "send", lambda name, args, options: taken.append(args))
    OutboxMessage.objects.update(send_after=timezone.now() - timedelta(seconds=1))
    assert queue.outbox_relay() == 2
    assert {args[0] for args in taken} == ids


def test_a_retried_upload_with_the_same_key_returns_the_first_answer(api, collection, sent):
    first = post_file(api, collection.id, "essay.txt", WATER.encode(), key="k-1")
    again = post_file(api, collection.id, "essay.txt", WATER.encode(), key="k-1")
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first
    assert Document.objects.count() == 1
    assert UploadKey.objects.get().document_ids == [first.json()["id"]]

    other = post_file(api, collection.id, "essay.txt", WATER.encode(), key="k-2")
    unkeyed = post_file(api, collection.id, "essay.txt", WATER.encode())
    assert other.json()["id"] != first.json()["id"] != unkeyed.json()["id"]
    assert Document.objects.count() == 3


def test_a_key_is_per_user_and_per_request(api, collection, stranger, sent):
    theirs = services.collection_create(owner=stranger, name="Theirs")
    client = APIClient()
    client.force_authenticate(stranger)
    mine = post_file(api, collection.id, "a.txt", WATER.encode(), key="same")
    other_user = post_file(client, theirs.id, "a.txt", WATER.encode(), key="same")
    assert (mine.status_code, other_user.status_code) == (201, 201)
    assert mine.json()["id"] != other_user.json()["id"]

    elsewhere = services.collection_create(owner=collection.owner, name="Other")
    reused = post_file(api, elsewhere.id, "a.txt", WATER.encode(), key="same")
    assert reused.status_code == 409
    assert "another request" in reused.json()["detail"]


def test_a_refused_upload_keeps_no_key_and_a_batch_is_replayed_whole(api, collection, sent):
    refused = post_file(api, collection.id, "empty.txt", b"", key="k")
    assert refused.status_code == 400
    assert not UploadKey.objects.exists()

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.txt", WATER.encode())
        archive.writestr("b.exe", b"MZ")
    first = post_file(api, collection.id, "batch.zip", buffer.getvalue(), key="k")
    again = post_file(api, collection.id, "batch.zip", buffer.getvalue(), key="k")
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and len(first.json()["documents"]) == 1
    assert Document.objects.count() == 1


def test_keys_are_forgotten_after_a_day(api, collection, sent):
    post_file(api, collection.id, "a.txt", WATER.encode(), key="old")
    post_file(api, collection.id, "b.txt", WATER.encode(), key="new")
    UploadKey.objects.filter(key="old").update(created_at=timezone.now() - timedelta(hours=25))
    assert services.upload_keys_expire() == 1
    assert list(UploadKey.objects.values_list("key", flat=True)) == ["new"]
