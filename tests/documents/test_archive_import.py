"""The bulk archive import (documents.bulk.engine, `manage.py import_archive`): files from
folders and ZIP batches become done archive documents in one COPY per chunk, searchable by a
later upload's check; unreadable files fail with the reason; a second run adds nothing."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from documents import selectors, services
from documents.bulk.engine import NOT_CHECKED, archive_import, import_files
from documents.models import Document
from tests.documents.factories import DATA, WATER, intercept_task, processed
from tests.documents.test_site_template import DONGFANG, TEMPLATE, article_lines, as_page

pytestmark = pytest.mark.django_db

ENGLISH = WATER + "\n\nA second paragraph says the plants opened in the spring of that year.\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """An archive on disk: texts at the top and in a subfolder, a ZIP batch (one document, one
    program it skips), an empty file, a file that is not a PDF, and hidden files."""
    root = tmp_path / "published"
    (root / "2019" / "spring").mkdir(parents=True)
    (root / "zh_source.txt").write_bytes((DATA / "zh_source.txt").read_bytes())
    (root / "2019" / "spring" / "water.txt").write_text(ENGLISH, encoding="utf-8")
    batch = io.BytesIO()
    with zipfile.ZipFile(batch, "w") as package:
        package.writestr("letters/unrelated.txt", (DATA / "zh_unrelated.txt").read_bytes())
        package.writestr("letters/setup.exe", b"MZ\x90\x00")
    (root / "batch.zip").write_bytes(batch.getvalue())
    (root / "empty.txt").write_bytes(b"")
    (root / "broken.pdf").write_bytes(b"this is not a pdf")
    (root / ".hidden.txt").write_text("not imported", encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]", encoding="utf-8")
    return root


def test_an_imported_archive_is_what_a_later_upload_is_checked_against(
    owner, archive, assignment, folder
):
    report = archive_import(archive, import_files([folder]), processes=1, chunk=2)

    assert (report.files, report.imported, report.duplicates) == (6, 3, 0)
    assert report.failed == [(str(folder / "broken.pdf"), report.failed[0][1])]
    assert "broken.pdf" in report.failed[0][1]
    assert sorted(reason for _, reason in report.skipped) == ["empty", "not a document (.exe)"]
    documents = {d.filename: d for d in Document.objects.filter(collection=archive)}
    assert set(documents) == {"zh_source.txt", "water.txt", "unrelated.txt", "broken.pdf"}
    assert sorted(report.document_ids) == sorted(d.id for d in documents.values())

    water = documents["water.txt"]
    assert (water.status, water.folder, water.language, water.progress) == (
        "done", "2019/spring", "en", 100,
    )  # fmt: skip
    assert water.text.startswith("The committee published") and water.indexed
    assert water.model_version == selectors.current_model_version()
    assert len(water.sentence_starts) == len(water.sentence_ends) == 5
    assert water.text[water.sentence_starts[1] : water.sentence_ends[1]].startswith("It describes")
    assert water.similarity is None and water.warnings == [NOT_CHECKED]
    assert water.original.read() == ENGLISH.encode()
    assert documents["unrelated.txt"].folder == "letters"
    broken = documents["broken.pdf"]
    assert broken.status == "failed" and "broken.pdf" in broken.error and not broken.indexed
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM documents_posting WHERE ref >> 32 = ANY(%s)",
            [report.document_ids],
        )
        assert cursor.fetchone()[0] == report.postings > 100

    suspicious = processed(assignment, "zh_suspicious.txt")
    sources = {s.title for s in selectors.report_get(document=suspicious).sources}
    assert sources == {"zh_source.txt"}


def test_running_the_same_import_again_adds_nothing(archive, folder):
    first = archive_import(archive, import_files([folder]), processes=1)
    before = list(Document.objects.filter(collection=archive).values_list("id", "status"))

    again = archive_import(archive, import_files([folder]), processes=1)

    assert (again.imported, again.failed, again.duplicates) == (0, [], first.imported + 1)
    assert list(Document.objects.filter(collection=archive).values_list("id", "status")) == before


def test_the_same_content_twice_in_one_import_is_stored_once(archive, tmp_path):
    for name in ("a.txt", "copy-of-a.txt"):
        (tmp_path / name).write_text(ENGLISH, encoding="utf-8")
    report = archive_import(archive, import_files([tmp_path]), processes=1)
    assert (report.imported, report.duplicates) == (1, 1)
    assert list(Document.objects.filter(collection=archive).values_list("filename", flat=True)) == [
        "a.txt"
    ]


def test_worker_processes_store_what_one_process_stores(owner, folder):
    one = services.collection_create(owner=owner, name="one", kind="archive")
    two = services.collection_create(owner=owner, name="two", kind="archive")
    archive_import(one, import_files([folder]), processes=1)
    archive_import(two, import_files([folder]), processes=2, chunk=2)

    def stored(collection):
        fields = ("filename", "folder", "status", "text", "sentence_starts", "sentence_ends")
        return sorted(Document.objects.filter(collection=collection).values_list(*fields))

    assert stored(one) == stored(two) and len(stored(two)) == 4


def test_imported_documents_are_checked_against_each_other_when_asked(archive, folder, worker):
    with worker.capture(execute=True):
        report = archive_import(archive, import_files([folder]), processes=1, check=True)
    assert report.queued_checks == 4  # the failed one is read again too
    assert set(Document.objects.filter(collection=archive).values_list("status", flat=True)) == {
        "queued"
    }
    worker.run()
    water = Document.objects.get(collection=archive, filename="water.txt")
    assert water.status == "done" and water.similarity == 0.0 and NOT_CHECKED not in water.warnings


def test_web_pages_of_one_site_lose_its_template(archive, shared_data, tmp_path):
    reprints = shared_data / "zh-reprints-dev" / "docs"
    for name in DONGFANG:
        page = as_page(reprints / name, "dongfang.example.com")
        (tmp_path / name.replace(".txt", ".html")).write_bytes(page)

    report = archive_import(archive, import_files([tmp_path]), processes=1)

    assert report.imported == len(DONGFANG) and report.requeued == 0
    for name in DONGFANG:
        page = Document.objects.get(collection=archive, filename=name.replace(".txt", ".html"))
        lines = page.text.split("\n")
        assert page.site == "example.com" and not set(TEMPLATE) & set(lines)
        assert set(TEMPLATE) <= set(page.boilerplate_lines)
        assert all(line in lines for line in article_lines(reprints / name))


def test_pages_stored_before_their_sites_template_was_learned_are_read_again(
    archive, shared_data, tmp_path, worker
):
    reprints = shared_data / "zh-reprints-dev" / "docs"
    for name in DONGFANG:
        page = as_page(reprints / name, "dongfang.example.com")
        (tmp_path / name.replace(".txt", ".html")).write_bytes(page)

    with worker.capture(execute=True):  # two pages per chunk: the first chunk learns nothing
        report = archive_import(archive, import_files([tmp_path]), processes=1, chunk=2)

    assert report.requeued == 2
    worker.run()
    for page in Document.objects.filter(collection=archive):
        assert page.status == "done" and set(TEMPLATE) <= set(page.boilerplate_lines)


def test_only_an_archive_is_imported_into(assignment, folder):
    with pytest.raises(services.UploadError, match="is an assignment"):
        archive_import(assignment, import_files([folder]), processes=1)
    assert not Document.objects.filter(collection=assignment).exists()


def test_the_command_creates_the_archive_and_reports_what_it_did(owner, folder):
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "import_archive", str(folder), archive="Newspaper", owner="owner",
        processes=1, stdout=out, stderr=err,
    )  # fmt: skip

    archive = owner.collections.get(name="Newspaper")
    assert archive.kind == "archive" and archive.documents.count() == 4
    text = out.getvalue()
    assert "Creating the archive 'Newspaper' of owner." in text
    assert "Imported 3 documents" in text and "1 failed" in text and "2 skipped" in text
    assert f"Failed: {folder / 'broken.pdf'}:" in text
    assert "Skipped: " in text and "setup.exe: not a document (.exe)" in text
    assert "6 files read: 3 imported" in err.getvalue()

    again = io.StringIO()
    call_command("import_archive", str(folder), archive=str(archive.id), stdout=again)
    assert "Imported 0 documents" in again.getvalue()
    assert "4 already in the archive" in again.getvalue()


def test_an_import_records_the_features_common_to_its_documents(owner, tmp_path, monkeypatch):
    """No check meets a bulk load's features, so the import counts its heavy ones itself:
    the first checks against the new archive need not fetch them to learn them."""
    from documents.index import store as pg_index

    monkeypatch.setattr(pg_index, "HEAVY_FLOOR", 2)  # three documents make a feature heavy
    for n, extra in enumerate(["The river was low.", "Birds came early.", "Rain fell at dusk."]):
        (tmp_path / f"{n}.txt").write_text(f"{WATER}\n\n{extra}\n", encoding="utf-8")
    call_command(
        "import_archive", str(tmp_path), archive="Heavy", owner="owner", processes=1,
        stdout=io.StringIO(), stderr=io.StringIO(),
    )  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute("SELECT feature, df FROM documents_feature_df")
        recorded = dict(cursor.fetchall())
        cursor.execute(
            "SELECT feature, count(DISTINCT ref >> 32) FROM documents_posting GROUP BY feature"
        )
        counted = dict(cursor.fetchall())
    assert recorded and recorded == {f: n for f, n in counted.items() if n > 2}


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"archive": "Newspaper"}, "--owner is needed"),
        ({"archive": "Newspaper", "owner": "nobody"}, "No user 'nobody'"),
        ({"archive": "999999"}, "No collection with id 999999"),
        ({"archive": "Newspaper", "owner": "owner", "chunk": 0}, "--chunk must be at least 1"),
    ],
)
def test_the_command_says_what_is_wrong(owner, folder, arguments, message):
    with pytest.raises(CommandError, match=message):
        call_command("import_archive", str(folder), **arguments)


def test_the_command_names_paths_that_do_not_exist(owner, tmp_path):
    with pytest.raises(CommandError, match="No such file or folder: .*missing"):
        call_command("import_archive", str(tmp_path / "missing"), archive="A", owner="owner")


def test_the_command_refuses_an_assignment(assignment, folder):
    with pytest.raises(CommandError, match="is an assignment"):
        call_command("import_archive", str(folder), archive=str(assignment.id))


def test_progress_is_told_after_every_chunk_and_large_files_make_smaller_chunks(
    archive, folder, monkeypatch
):
    from documents.bulk import engine as module

    monkeypatch.setattr(module, "CHUNK_BYTES", 1)  # every file fills a chunk on its own
    seen: list[tuple[int, int]] = []
    report = archive_import(
        archive, import_files([folder]), processes=1, chunk=100,
        progress=lambda r: seen.append((r.files, r.imported + len(r.failed))),
    )  # fmt: skip
    assert report.imported + len(report.failed) == 4
    stored = [count for _, count in seen]
    assert stored == sorted(stored) and len(seen) == 4 and stored[-1] == 4


def test_imported_documents_join_the_archives_near_duplicate_runs(
    owner, archive, shared_data, tmp_path, monkeypatch, django_capture_on_commit_callbacks
):
    from dedup import services as dedup_services
    from dedup.models import ClusterMember
    from dedup.tasks import dedup_assign_document

    reprints = shared_data / "zh-reprints-dev" / "docs"  # doc00002 reprints doc00001
    first = processed(archive, "doc00001.txt", (reprints / "doc00001.txt").read_bytes())
    run = dedup_services.dedup_run_start(collection=archive, method="periods")
    dedup_services.dedup_run_execute(run_id=run.id)
    (tmp_path / "doc00002.txt").write_bytes((reprints / "doc00002.txt").read_bytes())
    queued: list[int] = []
    intercept_task(monkeypatch, dedup_assign_document.name, queued.append)

    with django_capture_on_commit_callbacks(execute=True):
        report = archive_import(archive, import_files([tmp_path]), processes=1)

    assert queued == report.document_ids and len(queued) == 1
    (member,) = dedup_services.dedup_document_assign(document=Document.objects.get(id=queued[0]))
    assert member.cluster == ClusterMember.objects.get(run=run, document=first).cluster


def test_file_names_that_are_not_utf8_are_imported_with_a_replacement_character(archive, tmp_path):
    raw = os.fsencode(tmp_path) + b"/caf\xe9-notes.txt"  # Latin-1 bytes in the name
    with open(raw, "wb") as handle:
        handle.write(ENGLISH.encode())
    report = archive_import(archive, import_files([tmp_path]), processes=1)
    assert report.imported == 1
    assert Document.objects.get(collection=archive).filename == "caf\ufffd-notes.txt"


def test_a_file_failing_unexpectedly_fails_alone(archive, folder, monkeypatch):
    from documents.bulk import engine as module

    read_text = module.read_text

    def breaks_on_water(filename, data):
        if filename == "water.txt":
            raise RuntimeError("a bug in a reader")
        return read_text(filename, data)

    monkeypatch.setattr(module, "read_text", breaks_on_water)
    report = archive_import(archive, import_files([folder]), processes=1)

    assert report.imported == 2
    water = Document.objects.get(collection=archive, filename="water.txt")
    assert water.status == "failed"
    assert water.error == "water.txt: Processing failed (RuntimeError: a bug in a reader)."
