"""Storing a check's results: matches in both directions and the similarity they give."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence

from django.db import connection, transaction
from django.db.models import Q

from detection import Passage, coverage
from documents import exclusions
from documents.models import Collection, Document, Match, MatchPassage
from documents.services.locks import lock_collection, lock_document

logger = logging.getLogger(__name__)


def similarity_refresh_elsewhere(by_collection: dict[int, list[int]]) -> None:
    for collection_id, document_ids in sorted(by_collection.items()):
        with transaction.atomic():
            lock_collection(collection_id)
            for other in Document.objects.filter(id__in=document_ids):
                similarity_refresh(other)


def snapshot() -> str:
    """The current snapshot (committed transactions), for `_indexed_unseen`."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_snapshot()::text")
        return str(cursor.fetchone()[0])


def _indexed_unseen(ids: Iterable[int], seen: str | None) -> set[int]:
    """Those of `ids` indexed by a transaction that snapshot `seen` does not see (indexed
    while the check ran, or after it)."""
    ids = list(ids)
    if seen is None or not ids:
        return set()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id FROM documents_document WHERE id = ANY(%s::bigint[])"
            " AND indexed_xid IS NOT NULL"
            " AND NOT pg_visible_in_snapshot(indexed_xid::text::xid8, %s::pg_snapshot)"
            # (one transaction indexing and checking, as in tests, sees its own work)
            " AND indexed_xid IS DISTINCT FROM pg_current_xact_id_if_assigned()::text::bigint",
            [ids, seen],
        )
        return {row[0] for row in cursor.fetchall()}


def matches_replace(
    document: Document, passages: Sequence[Passage], model_version: str, seen: str | None
) -> None:
    """Store the document's matches, mirrored onto sources of its own collection; the matches
    of other collections' documents that copied from it (an archive document's copiers) are
    kept.

    A pair is only replaced by a check that could see both documents: this check sees its
    scope as of snapshot `seen` (None: everything), so a submission of the collection indexed
    while it ran keeps the pair it stored itself (its check saw this document), and a document
    of another collection (an assignment checked against this archive) keeps its matches with
    this one, which only its own check makes. Mirroring keeps reports symmetric when two
    submissions are processed in either order; the collection lock serialises concurrent
    workers writing the same pairs.
    """
    by_source: dict[int, list[Passage]] = defaultdict(list)
    for passage in passages:
        by_source[passage.source].append(passage)
    own = document.collection_id
    with transaction.atomic():
        lock_collection(own)
        lock_document(document.id)
        touching = Match.objects.filter(Q(document=document) | Q(source=document))
        others = {
            d if d != document.id else s for d, s in touching.values_list("document", "source")
        }
        # A source deleted since the check (e.g. its archive is being purged) is dropped here:
        # a match pointing at it would break the foreign key and fail this document.
        collection_of = dict(
            Document.objects.filter(id__in=others | set(by_source)).values_list(
                "id", "collection_id"
            )
        )
        by_source = defaultdict(list, {k: v for k, v in by_source.items() if k in collection_of})
        peers = {k for k, c in collection_of.items() if c == own and k != document.id}
        kept = _indexed_unseen(peers & (others - set(by_source)), seen)
        Match.objects.filter(document=document).exclude(source__in=kept).delete()
        Match.objects.filter(source=document, document__in=peers - kept).delete()
        _archive_pairs_forget(document)
        texts = dict(
            Document.objects.filter(id__in=peers & set(by_source)).values_list("id", "text")
        )
        for source_id, found in by_source.items():
            _match_store(document.id, source_id, found, len(document.text), model_version)
            if source_id in texts:
                mirrored = [_mirror(p, document.id) for p in found]
                _match_store(source_id, document.id, mirrored, len(texts[source_id]), model_version)
        similarity_refresh(document)
        for other in Document.objects.filter(id__in=peers - kept):
            similarity_refresh(other)


def _archive_pairs_forget(document: Document) -> None:
    """Drop the matches of other archives' documents with an archive document: archives are
    no longer checked against each other (`selectors.collection_scope`), so such pairs, made
    before, are never rewritten. The copiers' similarity is refreshed after the commit, each
    under its own collection's lock (never two collection locks at once)."""
    if document.collection.kind != Collection.Kind.ARCHIVE:
        return
    legacy = Match.objects.filter(
        source=document, document__collection__kind=Collection.Kind.ARCHIVE
    ).exclude(document__collection_id=document.collection_id)
    elsewhere: dict[int, list[int]] = defaultdict(list)
    for copier, collection_id in legacy.values_list("document_id", "document__collection_id"):
        elsewhere[collection_id].append(copier)
    if elsewhere:
        legacy.delete()
        transaction.on_commit(lambda: similarity_refresh_elsewhere(elsewhere))


def _match_store(
    document_id: int,
    source_id: int,
    passages: Sequence[Passage],
    text_length: int,
    model_version: str,
) -> None:
    match = Match.objects.create(
        document_id=document_id,
        source_id=source_id,
        similarity=coverage(text_length, passages),
        model_version=model_version,
    )
    MatchPassage.objects.bulk_create(
        MatchPassage(
            match=match,
            start=p.start,
            end=p.end,
            source_start=p.source_start,
            source_end=p.source_end,
            score=p.score,
            kind=p.kind,
        )
        for p in sorted(passages, key=lambda p: (p.start, p.source_start))
    )


def _mirror(passage: Passage, document_id: int) -> Passage:
    return Passage(
        source=document_id,
        start=passage.source_start,
        end=passage.source_end,
        source_start=passage.start,
        source_end=passage.end,
        score=passage.score,
        kind=passage.kind,
    )


def similarity_refresh(document: Document) -> None:
    """The similarity of each of the document's matches and its overall similarity under its
    collection's exclusions (`documents.exclusions`): the share of its text covered by passages
    that count, overall only from sources that count (archives, and documents of its
    collection not submitted after it).

    Single-table reads, not a join: with the statistics of match tables vacuumed while
    empty (reltuples 0: a new installation, or the tests) PostgreSQL expects one row on each
    side and joined them with a nested loop reading every match for every passage, once for
    each document of a batch (a batch of 60 in one transaction took over 10 minutes)."""
    matches = {
        row[0]: row[1:]
        for row in Match.objects.filter(document=document).values_list(
            "id", "source_id", "similarity"
        )
    }
    sources = {
        row[0]: row[1:]
        for row in Document.objects.filter(id__in=[m[0] for m in matches.values()]).values_list(
            "id", "collection_id", "submitted_at"
        )
    }
    rows = MatchPassage.objects.filter(match_id__in=list(matches)).values_list(
        "match_id", "start", "end", "source_start", "source_end", "score"
    )
    by_match: dict[int, list[Passage]] = defaultdict(list)
    for m, s, e, ss, se, sc in rows if matches else ():
        by_match[m].append(Passage(matches[m][0], s, e, ss, se, sc))
    rules = exclusions.Rules.of(document.collection)
    citations = exclusions.citations_of(document)
    left_out = rules.ranges(citations)
    length = len(document.text)
    counted_overall: list[Passage] = []
    changed: list[Match] = []
    for match_id, (source, stored) in matches.items():
        collection_id, submitted = sources[source]
        counted = [
            p
            for p in by_match[match_id]
            if exclusions.passage_excluded(
                p, source=source, text=document.text, citations=citations, rules=rules
            )
            is None
        ]
        share = exclusions.counted_share(length, counted, left_out)
        if share != stored:
            changed.append(Match(id=match_id, similarity=share))
        if exclusions.counts_towards(
            document=document, source_collection=collection_id, source_submitted=submitted
        ):
            counted_overall += counted
    Match.objects.bulk_update(changed, ["similarity"])
    value = exclusions.counted_share(length, counted_overall, left_out)
    Document.objects.filter(id=document.id).update(similarity=value)
