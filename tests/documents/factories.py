"""Small builders for the app tests (plain functions, real database rows)."""

from __future__ import annotations

import time
from pathlib import Path

import psycopg
from django.db import connection, transaction

from core import queue
from documents import services
from documents.models import Collection, Document

DATA = Path(__file__).resolve().parent / "data"

# A short English report, and a text that copies all but its first sentence.
WATER = (
    "The committee published its annual report on Monday morning. "
    "It describes how the water supply of the region was improved over the last decade. "
    "Engineers replaced most of the old pipes and built two new treatment plants. "
    "The report also warns that rainfall has become less predictable in recent years."
)
WATER_COPIED = "Cooking pasta needs salt and time, " + WATER[WATER.index("It describes") :]


def read_fixture(name: str) -> str:
    with open(DATA / name, encoding="utf-8", newline="") as handle:
        return handle.read()


def upload(collection: Collection, name: str, data: bytes | None = None) -> Document:
    """Upload a fixture file (or the given bytes) as the owner would."""
    if data is None:
        data = (DATA / name).read_bytes()
    with transaction.atomic():
        return services.document_upload(collection=collection, filename=name, data=data)


def processed(collection: Collection, name: str, data: bytes | None = None) -> Document:
    document = upload(collection, name, data)
    services.document_process(document_id=document.id)
    document.refresh_from_db()
    return document


def wait_until_finished(fetch_status, document_ids, *, within_seconds: float = 240) -> dict:
    """Poll until every document is done or failed; returns {id: last status body}."""
    deadline = time.monotonic() + within_seconds
    last: dict = {}
    while time.monotonic() < deadline:
        last = {i: fetch_status(i) for i in document_ids}
        if all(body["status"] in ("done", "failed") for body in last.values()):
            return last
        time.sleep(0.5)
    raise AssertionError(f"documents did not finish processing: {last}")


def intercept_task(monkeypatch, name: str, handler) -> None:  # type: ignore[no-untyped-def]
    """Messages for task `name` go to `handler(*args, **options)` instead of the broker;
    other tasks' messages pass on to whatever sent them before (interceptions chain)."""
    before = queue.send

    def send(task_name, args, options):  # type: ignore[no-untyped-def]
        if task_name == name:
            handler(*args, **options)
        else:
            before(task_name, args, options)

    monkeypatch.setattr(queue, "send", send)


class CapturedTasks:
    """A Celery task's messages replaced by a list: what was queued (on commit, within
    `capture()`), run in-process by `run()` as the worker would."""

    def __init__(self, monkeypatch, capture, task, body) -> None:  # type: ignore[no-untyped-def]
        self.queue: list[int] = []
        self.capture = capture
        self._body = body
        # Bulk re-checks name their queue (requeue._enqueue_ids); the queue does not matter here.
        intercept_task(monkeypatch, task.name, lambda task_id, **_: self.queue.append(task_id))

    def run(self) -> None:
        with self.capture(execute=True):  # what the runs queue or delete on commit happens too
            while self.queue:
                self._body(self.queue.pop(0))


def database_error(cause: psycopg.Error) -> Exception:
    """`cause` as Django raises it: wrapped in django.db's class of the same name."""
    try:
        with connection.wrap_database_errors:
            raise cause
    except Exception as wrapped:  # noqa: BLE001 - returned for the test to raise
        return wrapped
    raise AssertionError("not raised")
