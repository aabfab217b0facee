"""The pieces wired into the pipeline: word-level borders, the dedup hook, the collection page."""

from __future__ import annotations

import pytest

from documents import selectors
from documents.models import Document
from tests.documents.factories import WATER, intercept_task, processed

pytestmark = pytest.mark.django_db


def test_stored_passages_start_at_the_copied_words_not_the_sentence(assignment):
    copied = WATER[WATER.index("how the water") :]
    suspicious = "Cooking pasta needs salt and time, " + copied
    source = processed(assignment, "source.txt", WATER.encode())
    copier = processed(assignment, "copier.txt", suspicious.encode())
    report = selectors.report_get(document=copier)
    [found] = report.sources
    assert found.document == source.id
    [passage] = found.passages
    assert copier.text[passage.start : passage.end] == copied
    assert source.text[passage.source_start : passage.source_end] == copied


def test_source_texts_are_fetched_in_one_query(assignment, django_assert_max_num_queries):
    from detection import analyze
    from detection.detector import detect_refined
    from documents.index.store import PostgresSentenceIndex
    from documents.sources import SourceTexts, SpanRecorder

    copied = WATER[WATER.index("how the water") :]
    sources = [processed(assignment, f"s{i}.txt", WATER.encode()) for i in range(3)]
    text = "Cooking pasta needs salt and time, " + copied
    analysis = analyze(text)
    recorder = SpanRecorder(PostgresSentenceIndex(model_version=analysis.model_version))
    list(recorder.postings([], max_df=None))  # warm the connection
    texts = SourceTexts(recorder)
    passages = detect_refined(text, analysis, recorder, texts)
    assert {p.source for p in passages} == {s.id for s in sources}
    assert recorder.documents == {s.id for s in sources}
    with django_assert_max_num_queries(0):  # all loaded by the first call already
        assert all(texts(s.id) == WATER for s in sources)


def test_a_processed_document_is_queued_for_near_duplicate_assignment(
    assignment, monkeypatch, django_capture_on_commit_callbacks
):
    from dedup import tasks as dedup_tasks

    queued: list[int] = []
    intercept_task(monkeypatch, dedup_tasks.dedup_assign_document.name, queued.append)
    with django_capture_on_commit_callbacks(execute=True):
        document = processed(assignment, "source.txt", WATER.encode())
    assert document.status == Document.Status.DONE
    assert queued == [document.id]


def test_a_failed_document_is_not_queued_for_near_duplicates(
    assignment, monkeypatch, django_capture_on_commit_callbacks
):
    from dedup import tasks as dedup_tasks

    queued: list[int] = []
    intercept_task(monkeypatch, dedup_tasks.dedup_assign_document.name, queued.append)
    with django_capture_on_commit_callbacks(execute=True):
        document = processed(assignment, "empty.txt", b"   \n")
    assert document.status == Document.Status.FAILED
    assert queued == []


def test_the_collection_page_links_to_its_near_duplicates(client, owner, assignment):
    client.force_login(owner)
    page = client.get(f"/collections/{assignment.id}/").content.decode()
    assert f'href="/collections/{assignment.id}/dedup/"' in page
    assert "Near-duplicates" in page


def half_scanned_pdf() -> bytes:
    """A two-page PDF whose second page has no text layer (as a scanned page)."""
    import io

    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4)
    pdf.drawString(72, 760, WATER[:80])
    pdf.showPage()
    pdf.rect(72, 400, 200, 200, fill=1)  # an image-like page: drawing, no text
    pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def test_extraction_warnings_are_stored_and_shown(assignment, api, client, owner):
    document = processed(assignment, "half.pdf", half_scanned_pdf())
    assert document.status == Document.Status.DONE
    [warning] = document.warnings
    assert "no text layer" in warning
    body = api.get(f"/api/documents/{document.id}/").json()
    assert body["warnings"] == [warning]
    assert {"id", "status", "progress", "error"} <= body.keys()
    client.force_login(owner)
    page = client.get(f"/documents/{document.id}/").content.decode()
    assert 'id="document-warnings"' in page and "no text layer" in page


def test_a_document_without_warnings_has_an_empty_list(assignment, api):
    document = processed(assignment, "source.txt", WATER.encode())
    assert document.warnings == []
    assert api.get(f"/api/documents/{document.id}/").json()["warnings"] == []
