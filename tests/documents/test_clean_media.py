"""`manage.py clean_media`: the files no document or import refers to (an interrupted upload
or import leaves them), older than the given age, are listed and with --delete deleted;
documents' originals and pending imports' files are never touched."""

from __future__ import annotations

import io
import os
import time

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command

from documents.bulk import jobs as imports
from documents.models import ArchiveImport
from tests.documents.factories import WATER, upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def aged(name: str, hours: float) -> str:
    then = time.time() - hours * 3600
    os.utime(default_storage.path(name), (then, then))
    return name


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("clean_media", *args, stdout=out)
    return out.getvalue()


def test_only_old_files_no_row_refers_to_are_listed_and_deleted(media, archive, monkeypatch):
    document = upload(archive, "water.txt", WATER.encode())
    kept = aged(document.original.name, 5)
    monkeypatch.setattr(imports, "_enqueue", lambda import_id: None)
    job = imports.import_upload(collection=archive, files=[("water.txt", WATER.encode())])
    pending = aged(job.uploads[0][0], 5)
    lost = aged(default_storage.save("originals/2026/01/lost.txt", ContentFile(b"x" * 2048)), 2)
    gone_import = aged(default_storage.save("imports/999/1.upload", ContentFile(b"y")), 2)
    young = default_storage.save("originals/2026/11/in-flight.txt", ContentFile(b"z"))
    elsewhere = aged(default_storage.save("exports/report.csv", ContentFile(b"w")), 5)

    listed = run()
    assert f"{lost} (2 KB)" in listed and f"{gone_import} (1 bytes)" in listed
    assert "2 file(s) (2 KB) that no document or import refers to; --delete deletes" in listed
    for name in (kept, pending, young, elsewhere):
        assert name not in listed
    assert default_storage.exists(lost)  # listing deletes nothing

    deleted = run("--delete")
    assert "Deleted 2 file(s)" in deleted and "0 empty folder(s)" in deleted
    assert not default_storage.exists(lost) and not default_storage.exists(gone_import)
    aged("imports/999", 2)  # emptied by that run: its folder goes at a later one
    assert "1 empty folder(s)" in run("--delete")
    assert not os.path.exists(default_storage.path("imports/999"))
    for name in (kept, pending, young, elsewhere):
        assert default_storage.exists(name)
    assert ArchiveImport.objects.get(id=job.id).uploads[0][0] == pending
    assert "0 file(s) (0 bytes) that no document or import refers to." in run()


def test_a_younger_age_limit_lists_recent_files_too(media):
    name = default_storage.save("originals/2026/11/a.txt", ContentFile(b"a"))
    assert name not in run()
    assert name in run("--min-age-hours", "0")
