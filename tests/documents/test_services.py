"""Services on the real PostgreSQL: upload validation and the whole pipeline, run in-process."""

import hashlib

import pytest
from django.db import connection

from detection import DetectionError
from documents import selectors, services
from documents.index.store import PostgresSentenceIndex
from documents.models import Collection, Document, Match, MatchPassage
from documents.services import matches, pipeline
from tests.documents.factories import processed, read_fixture, upload

pytestmark = pytest.mark.django_db

COPIED = (899, 1156)  # in zh_suspicious.txt (truth of the shared pair, see data/README.md)
SOURCE = (335, 592)  # in zh_source.txt


def overlaps(a, b):
    return a[0] < b[1] and b[0] < a[1]


def index_rows(document_id):
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM documents_posting WHERE ref >> 32 = %s", [document_id])
        return cursor.fetchone()[0]


def test_collection_create_validates_name_and_kind(owner):
    with pytest.raises(services.CollectionError, match="name"):
        services.collection_create(owner=owner, name="  ")
    with pytest.raises(services.CollectionError, match="kind"):
        services.collection_create(owner=owner, name="x", kind="folder")
    archive = services.collection_create(owner=owner, name=" Refs ", kind="archive")
    assert (archive.name, archive.kind) == ("Refs", Collection.Kind.ARCHIVE)


def test_upload_keeps_the_original_and_its_checksum(assignment):
    data = "第一句。第二句。".encode()
    document = upload(assignment, "dir\\essay.txt", data)
    assert document.filename == "essay.txt"
    assert document.status == Document.Status.QUEUED
    assert document.checksum == hashlib.sha256(data).hexdigest()
    with document.original.open("rb") as handle:
        assert handle.read() == data


def test_upload_refuses_empty_and_too_large_files(assignment, settings):
    settings.MAX_UPLOAD_BYTES = 10
    with pytest.raises(services.UploadError, match="empty"):
        upload(assignment, "a.txt", b"")
    with pytest.raises(services.UploadError, match="limit is 10 bytes"):
        upload(assignment, "a.txt", b"x" * 11)
    assert not Document.objects.exists()


def test_processing_finds_the_copied_passage_on_both_sides(assignment):
    source = processed(assignment, "zh_source.txt")
    suspicious = processed(assignment, "zh_suspicious.txt")
    assert (suspicious.status, suspicious.progress, suspicious.error) == ("done", 100, "")
    assert suspicious.text == read_fixture("zh_suspicious.txt").rstrip("\n")
    assert suspicious.language == "zh"
    report = selectors.report_get(document=suspicious)
    assert [s.document for s in report.sources] == [source.id]
    [passage] = report.sources[0].passages
    assert overlaps((passage.start, passage.end), COPIED)
    assert overlaps((passage.source_start, passage.source_end), SOURCE)
    assert 0 < report.similarity < 0.5
    # The source was processed first; the mirrored match gives it a report too.
    mirrored = selectors.report_get(document=Document.objects.get(id=source.id))
    [back] = mirrored.sources[0].passages
    assert (back.start, back.end) == (passage.source_start, passage.source_end)


def test_the_similarity_is_refreshed_without_a_join(assignment):
    """A join of matches and passages was planned as a nested loop reading every match for
    every passage when the tables' statistics said "empty" (vacuumed while empty: 3.2 s a
    call with 3,600 matches); single-table reads cannot be planned that way."""
    from django.test.utils import CaptureQueriesContext

    processed(assignment, "zh_source.txt")
    suspicious = processed(assignment, "zh_suspicious.txt")
    expected = suspicious.similarity
    Document.objects.filter(id=suspicious.id).update(similarity=None)
    with CaptureQueriesContext(connection) as queries:
        matches.similarity_refresh(suspicious)
    assert not [q["sql"] for q in queries if " JOIN " in q["sql"].upper()]
    suspicious.refresh_from_db()
    assert suspicious.similarity == expected > 0


def test_unrelated_documents_have_no_sources(assignment):
    processed(assignment, "zh_source.txt")
    unrelated = processed(assignment, "zh_unrelated.txt")
    assert unrelated.status == "done"
    assert selectors.report_get(document=unrelated).sources == ()
    assert unrelated.similarity == 0.0


def test_running_the_pipeline_twice_replaces_instead_of_duplicating(assignment):
    processed(assignment, "zh_source.txt")
    suspicious = processed(assignment, "zh_suspicious.txt")

    def state():
        return (
            index_rows(suspicious.id),
            len(Document.objects.get(id=suspicious.id).sentence_starts),
            Match.objects.count(),
            MatchPassage.objects.count(),
            list(MatchPassage.objects.values_list("start", "end", "source_start", "source_end")),
        )

    before = state()
    services.document_process(document_id=suspicious.id)
    assert state() == before
    assert before[0] > 0 and before[2] == 2


def test_a_failing_document_is_marked_and_others_still_process(assignment):
    broken = processed(assignment, "blank.txt", b"   \n  ")
    assert broken.status == Document.Status.FAILED
    assert "blank.txt: the file is empty" in broken.error
    fine = processed(assignment, "zh_source.txt")
    assert fine.status == Document.Status.DONE


def test_a_document_the_index_cannot_hold_fails_with_the_reason(assignment, monkeypatch):
    def refuse(self, document_id, analysis):
        raise DetectionError("a document with more than 1,048,576 sentences cannot be indexed")

    monkeypatch.setattr(PostgresSentenceIndex, "add", refuse)
    document = processed(assignment, "zh_source.txt")
    assert document.status == Document.Status.FAILED
    assert document.error == "a document with more than 1,048,576 sentences cannot be indexed"


def test_processing_a_deleted_document_returns_quietly(assignment):
    document = upload(assignment, "zh_source.txt")
    document_id = document.id
    Document.objects.filter(id=document_id).delete()
    services.document_process(document_id=document_id)
    assert not Document.objects.filter(id=document_id).exists()


def test_a_document_deleted_while_its_file_is_read_is_not_logged_as_a_failure(
    assignment, monkeypatch, caplog
):
    document = upload(assignment, "zh_source.txt")

    def deleted_meanwhile(page_document):
        Document.objects.filter(id=page_document.id).delete()
        raise FileNotFoundError(page_document.original.name)

    monkeypatch.setattr(pipeline, "_page_read", deleted_meanwhile)
    with caplog.at_level("INFO", logger="documents.services"):
        services.document_process(document_id=document.id)
    assert "deleted while processing" in caplog.text
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


def test_archives_are_searched_and_other_users_are_not(owner, stranger, assignment):
    archive = services.collection_create(owner=owner, name="Refs", kind="archive")
    strangers = services.collection_create(owner=stranger, name="Theirs", kind="archive")
    processed(strangers, "zh_source.txt")
    in_archive = processed(archive, "zh_source.txt")
    suspicious = processed(assignment, "zh_suspicious.txt")
    report = selectors.report_get(document=suspicious)
    assert [s.document for s in report.sources] == [in_archive.id]


def test_only_the_selected_archives_are_searched(owner, assignment):
    chosen = services.collection_create(owner=owner, name="Chosen", kind="archive")
    ignored = services.collection_create(owner=owner, name="Ignored", kind="archive")
    processed(ignored, "zh_source.txt")
    processed(chosen, "zh_unrelated.txt")
    services.collection_archives_set(collection=assignment, archive_ids=[chosen.id])
    suspicious = processed(assignment, "zh_suspicious.txt")
    assert selectors.report_get(document=suspicious).sources == ()


def test_delete_removes_postings_and_refreshes_the_copier(assignment):
    source = processed(assignment, "zh_source.txt")
    suspicious = processed(assignment, "zh_suspicious.txt")
    assert suspicious.similarity > 0
    services.document_delete(document=Document.objects.get(id=source.id))
    assert index_rows(source.id) == 0
    suspicious.refresh_from_db()
    assert suspicious.similarity == 0.0
    assert not Match.objects.exists()


def zip_of(files):
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_a_zip_batch_becomes_one_document_per_member_with_its_folder(assignment):
    data = zip_of(
        {
            "class-a/alice.txt": "第一句。".encode(),
            "class-b/bob.txt": "第二句。".encode(),
            "tool.exe": b"MZ",
        }
    )
    batch = services.document_upload_batch(collection=assignment, filename="b.zip", data=data)
    assert sorted((d.folder, d.filename) for d in batch.documents) == [
        ("class-a", "alice.txt"),
        ("class-b", "bob.txt"),
    ]
    assert [path for path, _ in batch.skipped] == ["tool.exe"]


def test_a_corrupt_zip_is_refused(assignment):
    with pytest.raises(services.UploadError, match="corrupt"):
        services.document_upload_batch(collection=assignment, filename="b.zip", data=b"PK junk")
    assert not Document.objects.exists()
