"""The sentence units of sources are kept per document by the first check that compares them,
read by the next checks, and never read for another text or version."""

from __future__ import annotations

import pytest

from detection import DEFAULT_CONFIG, MemoryIndex
from detection.detector import query_units
from documents import services
from documents.models import Document, DocumentUnits, MatchPassage
from documents.sources import SourceTexts, SpanRecorder, StoredUnits
from tests.detection.test_disguise import DISGUISED, ORIGINAL
from tests.documents.factories import processed

pytestmark = pytest.mark.django_db


def _passages(document: Document) -> list[tuple[int, int, str]]:
    rows = MatchPassage.objects.filter(match__document=document)
    return sorted(rows.values_list("start", "end", "kind"))


def test_a_check_keeps_the_units_of_a_source_it_compared(assignment):
    source = processed(assignment, "original.txt", ORIGINAL.encode())
    assert not DocumentUnits.objects.exists()
    processed(assignment, "disguised.txt", DISGUISED.encode())
    stored = StoredUnits(lambda _: "").load([source.id])
    assert stored == {source.id: query_units(source.text, DEFAULT_CONFIG)}


def test_a_check_with_stored_units_finds_the_same_passages(assignment):
    processed(assignment, "original.txt", ORIGINAL.encode())
    first = processed(assignment, "disguised.txt", DISGUISED.encode())
    second = processed(assignment, "disguised-again.txt", DISGUISED.encode())
    assert _passages(first)
    assert any(kind == "edited" for *_, kind in _passages(first))
    assert _passages(second) == _passages(first)


def test_units_of_another_text_or_version_are_not_read(assignment):
    source = processed(assignment, "original.txt", ORIGINAL.encode())
    store = StoredUnits(lambda _: source.text)
    store.save({source.id: query_units(source.text, DEFAULT_CONFIG)})
    assert store.load([source.id])
    Document.objects.filter(id=source.id).update(text=source.text + " More.")
    assert store.load([source.id]) == {}
    Document.objects.filter(id=source.id).update(text=source.text)
    DocumentUnits.objects.filter(document_id=source.id).update(version="units0")
    assert store.load([source.id]) == {}


def test_analysing_a_changed_text_again_drops_its_units(assignment):
    source = processed(assignment, "original.txt", ORIGINAL.encode())
    StoredUnits(lambda _: source.text).save({source.id: query_units(source.text, DEFAULT_CONFIG)})
    assert DocumentUnits.objects.filter(document_id=source.id).exists()
    # As if an earlier release had extracted another text from the same file.
    Document.objects.filter(id=source.id).update(text="An older extraction of the file.")
    services.document_process(document_id=source.id)
    assert not DocumentUnits.objects.filter(document_id=source.id).exists()


def test_deleting_a_document_deletes_its_units(assignment):
    source = processed(assignment, "original.txt", ORIGINAL.encode())
    StoredUnits(lambda _: source.text).save({source.id: query_units(source.text, DEFAULT_CONFIG)})
    assert DocumentUnits.objects.filter(document_id=source.id).exists()
    Document.objects.filter(id=source.id).delete()
    assert not DocumentUnits.objects.exists()


def test_units_of_a_document_gone_meanwhile_are_not_kept(assignment):
    source = processed(assignment, "original.txt", ORIGINAL.encode())
    gone = source.id
    Document.objects.filter(id=gone).delete()
    StoredUnits(lambda _: ORIGINAL).save({gone: query_units(ORIGINAL, DEFAULT_CONFIG)})
    assert not DocumentUnits.objects.exists()


def test_the_texts_of_sources_without_stored_units_come_in_one_query(
    assignment, django_assert_num_queries
):
    first = processed(assignment, "original.txt", ORIGINAL.encode())
    second = processed(assignment, "other.txt", (ORIGINAL + DISGUISED).encode())
    DocumentUnits.objects.all().delete()
    texts = SourceTexts(SpanRecorder(MemoryIndex()))
    store = StoredUnits(texts)
    with django_assert_num_queries(2):  # the stored units, then both texts at once
        assert store.load([first.id, second.id]) == {}
    with django_assert_num_queries(0):
        assert texts(first.id) == first.text
        assert texts(second.id) == second.text
