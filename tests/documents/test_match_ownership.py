"""Which check replaces which matches: re-checking a source never takes away what the
copiers of other collections found, and a check never drops a pair stored by a submission
indexed while it ran."""

from __future__ import annotations

import pytest

from detection import Passage
from documents import selectors, services
from documents.models import Document, Match
from documents.services import matches
from tests.documents.factories import WATER, WATER_COPIED, processed, upload

pytestmark = pytest.mark.django_db


def sources_of(document: Document) -> list[int]:
    return [s.document for s in selectors.report_get(document=document).sources]


def test_rechecking_an_archive_document_keeps_what_its_copiers_found(archive, assignment):
    source = processed(archive, "source.txt", WATER.encode())
    copier = processed(assignment, "copier.txt", WATER_COPIED.encode())
    assert sources_of(copier) == [source.id] and copier.similarity > 0.5

    services.document_process(document_id=source.id)  # "Check again" on the archive document

    copier.refresh_from_db()
    assert sources_of(copier) == [source.id] and copier.similarity > 0.5


def test_a_changed_source_text_sends_its_copiers_to_be_checked_again(
    archive, assignment, worker, django_capture_on_commit_callbacks
):
    source = processed(archive, "source.txt", WATER.encode())
    copier = processed(assignment, "copier.txt", WATER_COPIED.encode())
    with open(source.original.path, "wb") as handle:  # e.g. a better extraction this release
        handle.write(("A new opening sentence comes first in this version. " + WATER).encode())

    with django_capture_on_commit_callbacks(execute=True):
        services.document_process(document_id=source.id)
    assert worker.queue == [copier.id]
    worker.run()

    copier.refresh_from_db()
    source.refresh_from_db()
    match = Match.objects.get(document=copier, source=source)
    passage = match.passages.get()
    copied = WATER_COPIED[passage.start : passage.end]
    assert source.text[passage.source_start : passage.source_end] == copied  # the new offsets


# Committed one by one, as the worker commits: each indexing is its own transaction.
@pytest.mark.django_db(transaction=True)
def test_a_check_keeps_the_pair_of_a_submission_indexed_while_it_ran(assignment):
    first = processed(assignment, "first.txt", WATER.encode())
    seen = matches.snapshot()  # the first document's check starts: it cannot see `second`
    second = processed(assignment, "second.txt", WATER_COPIED.encode())
    assert sources_of(second) == [first.id]  # found by the second's check, mirrored on first

    first.refresh_from_db()
    matches.matches_replace(first, [], first.model_version, seen)  # the first check ends

    first.refresh_from_db()
    assert sources_of(first) == [second.id] and sources_of(second) == [first.id]
    assert first.similarity > 0.5


@pytest.mark.django_db(transaction=True)
def test_a_check_that_saw_a_submission_drops_the_pair_it_no_longer_finds(assignment):
    first = processed(assignment, "first.txt", WATER.encode())
    second = processed(assignment, "second.txt", WATER_COPIED.encode())
    seen = matches.snapshot()  # both indexed before the check starts

    first.refresh_from_db()
    matches.matches_replace(first, [], first.model_version, seen)

    first.refresh_from_db()
    second.refresh_from_db()
    assert sources_of(first) == [] and sources_of(second) == []
    assert first.similarity == second.similarity == 0.0


def test_an_archive_is_checked_against_itself_only(owner, archive):
    older = services.collection_create(owner=owner, name="Older", kind="archive")
    original = processed(older, "original.txt", WATER.encode())
    reprint = processed(archive, "reprint.txt", WATER_COPIED.encode())
    assert selectors.collection_scope(collection=archive) == [archive.id]
    assert sources_of(reprint) == []
    services.document_process(document_id=original.id)
    assert sources_of(Document.objects.get(id=original.id)) == []


def test_a_submission_still_finds_both_archives(owner, archive, assignment):
    older = services.collection_create(owner=owner, name="Older", kind="archive")
    original = processed(older, "original.txt", WATER.encode())
    copier = upload(assignment, "copier.txt", WATER_COPIED.encode())
    services.document_process(document_id=copier.id)
    assert set(selectors.collection_scope(collection=assignment)) == {
        assignment.id,
        archive.id,
        older.id,
    }
    assert sources_of(Document.objects.get(id=copier.id)) == [original.id]


def test_old_pairs_between_archives_go_when_the_source_is_checked_again(
    owner, archive, django_capture_on_commit_callbacks
):
    """Archives were once checked against each other; those pairs are dropped now."""
    older = services.collection_create(owner=owner, name="Older", kind="archive")
    original = processed(older, "original.txt", WATER.encode())
    reprint = processed(archive, "reprint.txt", WATER_COPIED.encode())
    passages = [Passage(original.id, 0, len(WATER_COPIED), 0, len(WATER), 1.0)]
    matches._match_store(reprint.id, original.id, passages, len(WATER_COPIED), "v")
    matches.similarity_refresh(reprint)  # as an earlier release left it
    reprint.refresh_from_db()
    assert reprint.similarity == 1.0

    with django_capture_on_commit_callbacks(execute=True):
        services.document_process(document_id=original.id)

    reprint.refresh_from_db()
    assert not Match.objects.exists() and reprint.similarity == 0.0
