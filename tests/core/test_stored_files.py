"""core.stored_files: the files stored in a transaction are deleted when its rows are rolled
back, handed to the enclosing block when a nested one commits, and kept when the COMMIT
itself fails (whether the server committed is then unknown)."""

from __future__ import annotations

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage
from django.db import OperationalError, connection

from core import stored_files


class Failed(Exception):
    pass


@pytest.fixture
def storage(tmp_path) -> FileSystemStorage:
    return FileSystemStorage(location=tmp_path)


def store(storage: FileSystemStorage, name: str) -> str:
    stored = storage.save(name, ContentFile(b"x"))
    stored_files.add(stored, storage=storage)
    return stored


@pytest.mark.django_db
def test_the_files_of_a_block_that_fails_are_deleted(storage):
    with pytest.raises(Failed), stored_files.atomic():
        name = store(storage, "a.txt")
        raise Failed
    assert not storage.exists(name)


@pytest.mark.django_db
def test_a_nested_block_that_committed_loses_its_files_with_the_enclosing_one(storage):
    with pytest.raises(Failed), stored_files.atomic():
        with stored_files.atomic():
            inner = store(storage, "inner.txt")
        outer = store(storage, "outer.txt")
        raise Failed
    assert not storage.exists(inner) and not storage.exists(outer)


@pytest.mark.django_db
def test_a_nested_block_that_failed_alone_leaves_the_enclosing_ones_files(storage):
    with stored_files.atomic():
        kept = store(storage, "kept.txt")
        with pytest.raises(Failed), stored_files.atomic():
            gone = store(storage, "gone.txt")
            raise Failed
    assert storage.exists(kept) and not storage.exists(gone)


@pytest.mark.django_db(transaction=True)
def test_the_files_are_kept_when_the_commit_itself_fails(storage, monkeypatch):
    def commit() -> None:
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(connection, "commit", commit)
    with pytest.raises(OperationalError), stored_files.atomic():
        name = store(storage, "a.txt")
    monkeypatch.undo()
    assert storage.exists(name)  # a row might refer to it: clean_media decides later
