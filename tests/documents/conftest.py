"""Fixtures shared by the app tests of documents/."""

import pytest

from documents import services
from documents import tasks as document_tasks
from tests.documents.factories import CapturedTasks


@pytest.fixture
def assignment(owner):
    """An assignment collection of `owner` named "Essay 1"."""
    return services.collection_create(owner=owner, name="Essay 1")


@pytest.fixture
def archive(owner):
    """An archive collection of `owner` named "Published"."""
    return services.collection_create(owner=owner, name="Published", kind="archive")


@pytest.fixture
def worker(monkeypatch, django_capture_on_commit_callbacks):
    """The processing tasks queued on commit, run in-process by `worker.run()`."""
    return CapturedTasks(
        monkeypatch,
        django_capture_on_commit_callbacks,
        document_tasks.document_process_task,
        lambda document_id: services.document_process(document_id=document_id),
    )
