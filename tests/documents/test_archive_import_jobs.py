"""Bulk imports from the archive's page and the API (documents.bulk.jobs): the uploaded files are
kept until the worker has stored their documents, the row follows the import's progress, a
failed import keeps its files and runs again, and a second message for one import does
nothing."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection

from documents import services
from documents import tasks as document_tasks
from documents.bulk import engine as archive_import
from documents.bulk import jobs as imports
from documents.bulk.engine import NOT_CHECKED
from documents.models import ArchiveImport, Document
from tests.documents.factories import DATA, WATER, CapturedTasks, intercept_task

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    """A media folder of the test's own: import folders are named by id, and ids start again
    in every test database."""
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def importer(monkeypatch, django_capture_on_commit_callbacks):
    """The import tasks queued on commit, run in-process by `importer.run()`."""
    return CapturedTasks(
        monkeypatch,
        django_capture_on_commit_callbacks,
        document_tasks.archive_import_task,
        lambda import_id: imports.import_run(import_id=import_id),
    )


def batch() -> bytes:
    """Two documents in folders and a program the import skips."""
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as package:
        package.writestr("2019/zh_source.txt", (DATA / "zh_source.txt").read_bytes())
        package.writestr("2020/water.txt", WATER)
        package.writestr("2020/setup.exe", b"MZ\x90\x00")
    return data.getvalue()


def uploads(job: ArchiveImport) -> list[str]:
    return [where for where, _ in job.uploads]


def test_the_archive_page_imports_a_zip_in_bulk_through_the_worker(browser, archive, importer):
    with importer.capture(execute=True):
        response = browser.post(
            f"/collections/{archive.id}/upload/",
            {"files": [SimpleUploadedFile("published.zip", batch())], "bulk": "on"},
            follow=True,
        )
    job = ArchiveImport.objects.get(collection=archive)
    assert "queued to be imported in bulk" in response.content.decode()
    assert (job.status, job.names, importer.queue) == ("queued", "published.zip", [job.id])
    assert all(default_storage.exists(where) for where in uploads(job))
    assert not Document.objects.filter(collection=archive).exists()

    importer.run()

    job.refresh_from_db()
    assert (job.status, job.files, job.imported, job.skipped) == ("done", 3, 2, 1)
    assert job.problem_list == [
        {"path": "published.zip:2020/setup.exe", "reason": "not a document (.exe)"}
    ]
    assert job.summary == "3 files read: 2 imported, 1 skipped"
    assert job.started_at <= job.finished_at
    assert not any(default_storage.exists(where) for where in uploads(job))
    assert not default_storage.exists(f"{imports.UPLOADS_FOLDER}/{job.id}")
    documents = Document.objects.filter(collection=archive)
    assert {(d.folder, d.filename, d.status) for d in documents} == {
        ("2019", "zh_source.txt", "done"),
        ("2020", "water.txt", "done"),
    }
    assert all(d.indexed and d.warnings[-1] == NOT_CHECKED for d in documents)
    page = browser.get(f"/collections/{archive.id}/").content.decode()
    assert 'id="imports"' in page and "3 files read: 2 imported, 1 skipped" in page


def test_without_the_bulk_box_an_archive_upload_is_checked_one_by_one(
    browser, archive, importer, worker
):
    with worker.capture(execute=True):
        browser.post(
            f"/collections/{archive.id}/upload/",
            {"files": [SimpleUploadedFile("water.txt", WATER.encode())]},
        )
    assert not ArchiveImport.objects.exists() and not importer.queue
    assert len(worker.queue) == 1


def test_an_assignment_never_imports_in_bulk(browser, assignment, importer, worker):
    with pytest.raises(services.UploadError, match="Bulk imports are for archives"):
        imports.import_upload(collection=assignment, files=[("water.txt", WATER.encode())])
    with worker.capture(execute=True):  # the box is not on its page; sent anyway, ignored
        browser.post(
            f"/collections/{assignment.id}/upload/",
            {"files": [SimpleUploadedFile("water.txt", WATER.encode())], "bulk": "on"},
        )
    assert not ArchiveImport.objects.exists() and len(worker.queue) == 1


@pytest.mark.parametrize(
    ("name", "data", "why"),
    [
        ("notes.txt", b"", "notes.txt is empty"),
        ("setup.exe", b"MZ\x90\x00", "setup.exe: "),
        ("huge.zip", b"x" * (1024 * 1024 + 1), "the limit is"),
    ],
)
def test_a_file_that_cannot_be_imported_is_refused_at_once(archive, importer, name, data, why):
    stored = stored_uploads()
    with pytest.raises(services.UploadError, match=why):
        imports.import_upload(
            collection=archive, files=[("water.txt", WATER.encode()), (name, data)]
        )
    assert not ArchiveImport.objects.exists() and not importer.queue
    assert stored_uploads() == stored


def stored_uploads() -> set[Path]:
    return set(Path(settings.MEDIA_ROOT, imports.UPLOADS_FOLDER).rglob("*.upload"))


def test_a_failed_import_keeps_its_files_and_runs_again(browser, archive, importer, monkeypatch):
    with importer.capture(execute=True):
        job = imports.import_upload(collection=archive, files=[("published.zip", batch())])
    engine = archive_import.archive_import

    def broken(*args, **kwargs):
        raise OSError("No space left on device")

    monkeypatch.setattr(archive_import, "archive_import", broken)
    importer.run()
    job.refresh_from_db()
    assert job.status == "failed" and job.error == "The import stopped (No space left on device)."
    assert all(default_storage.exists(where) for where in uploads(job))
    page = browser.get(f"/collections/{archive.id}/").content.decode()
    assert "No space left on device" in page and f"/imports/{job.id}/retry/" in page

    monkeypatch.setattr(archive_import, "archive_import", engine)
    with importer.capture(execute=True):
        browser.post(f"/imports/{job.id}/retry/")
    importer.run()
    job.refresh_from_db()
    assert (job.status, job.error, job.imported) == ("done", "", 2)

    response = browser.post(f"/imports/{job.id}/retry/", follow=True)
    assert "Only a failed import can be run again" in response.content.decode()


def test_a_second_message_for_one_import_stores_nothing_twice(archive, importer):
    with importer.capture(execute=True):
        job = imports.import_upload(collection=archive, files=[("published.zip", batch())])
    importer.queue.append(job.id)  # redelivered, or queued again by the start-up sweep

    importer.run()

    job.refresh_from_db()
    assert (job.status, job.imported, job.duplicates) == ("done", 2, 0)
    assert Document.objects.filter(collection=archive).count() == 2


def test_an_import_into_a_busy_archive_comes_back_later_instead_of_holding_a_worker(
    archive, importer
):
    with importer.capture(execute=True):
        job = imports.import_upload(collection=archive, files=[("published.zip", batch())])
    importer.queue.clear()
    other = psycopg.connect(**connection.get_connection_params(), autocommit=True)
    try:  # another import into the archive, in another session
        other.execute("SELECT pg_advisory_lock(%s, %s)", [archive_import._LOCK_SPACE, archive.id])
        imports.import_run(import_id=job.id)
        assert importer.queue == [job.id]
        assert ArchiveImport.objects.get(id=job.id).status == "queued"
        assert not Document.objects.filter(collection=archive).exists()
    finally:
        other.close()

    importer.run()
    assert ArchiveImport.objects.get(id=job.id).status == "done"


def test_an_interrupted_import_is_queued_again_at_start_up(archive, importer):
    with importer.capture(execute=True):
        job = imports.import_upload(collection=archive, files=[("published.zip", batch())])
    importer.queue.clear()  # the broker lost the message
    ArchiveImport.objects.filter(id=job.id).update(status="running")

    call_command("reanalyze", "--unfinished", stdout=io.StringIO())

    assert importer.queue == [job.id]
    importer.run()
    assert ArchiveImport.objects.get(id=job.id).status == "done"


def test_deleting_the_archive_deletes_the_files_of_its_imports(archive, importer, monkeypatch):
    with importer.capture(execute=True):
        job = imports.import_upload(collection=archive, files=[("published.zip", batch())])
    kept = uploads(job)
    intercept_task(monkeypatch, document_tasks.collection_delete_task.name, lambda *_: None)
    with importer.capture(execute=True):
        services.collection_delete(collection=archive)
        services.collection_purge(collection_id=archive.id)
    assert not ArchiveImport.objects.exists()
    assert not any(default_storage.exists(where) for where in kept)

    importer.run()  # its message, still queued, finds nothing to do


def test_the_api_imports_in_bulk_and_lists_the_progress(api, anonymous_api, archive, importer):
    url = f"/api/collections/{archive.id}/imports/"
    with importer.capture(execute=True):
        response = api.post(
            url, {"files": [SimpleUploadedFile("published.zip", batch())]}, format="multipart"
        )
    assert response.status_code == 202
    assert (response.data["status"], response.data["summary"]) == ("queued", "nothing read yet")

    importer.run()

    listed = api.get(url).data
    assert [(j["id"], j["status"], j["imported"], j["skipped"]) for j in listed] == [
        (response.data["id"], "done", 2, 1)
    ]
    assert listed[0]["problems"][0]["reason"] == "not a document (.exe)"
    assert anonymous_api.get(url).status_code in (401, 403)


def test_the_api_refuses_bulk_imports_into_an_assignment(api, assignment):
    response = api.post(
        f"/api/collections/{assignment.id}/imports/",
        {"files": [SimpleUploadedFile("water.txt", WATER.encode())]},
        format="multipart",
    )
    assert (
        response.status_code == 400 and "Bulk imports are for archives" in response.data["files"][0]
    )


def test_strangers_see_no_import(client, stranger, archive, importer):
    with importer.capture(execute=True):
        job = imports.import_upload(collection=archive, files=[("water.txt", WATER.encode())])
    client.force_login(stranger)
    assert client.post(f"/imports/{job.id}/retry/").status_code == 404
    assert client.get(f"/api/collections/{archive.id}/imports/").status_code == 404
