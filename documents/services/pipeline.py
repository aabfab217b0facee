"""The processing of one document: text, analysis, postings, the check, its results."""

from __future__ import annotations

import functools
import hashlib
import logging
from collections.abc import Sequence
from dataclasses import replace

from django.conf import settings
from django.db import transaction
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL

from core import transient
from detection import DEFAULT_CONFIG, DetectionError, DocumentAnalysis, Passage, analyze
from detection.detector import detect_refined
from documents import boilerplate, selectors, signals
from documents.detector_config import detector_config
from documents.index.store import PostgresSentenceIndex
from documents.models import Document, DocumentUnits
from documents.reading import UnreadableFile, read_text
from documents.services.locks import DocumentGone, lock_document
from documents.services.matches import matches_replace, snapshot
from documents.services.requeue import copiers_requeue, document_recheck, recheck_after_template
from documents.sources import SourceTexts, SpanRecorder, StoredUnits
from extraction.citations import find_citations

logger = logging.getLogger(__name__)


# How many of the documents holding a too-common passage a warning names.
COMMON_NAMED = 5


def document_process(*, document_id: int, may_retry: bool = False) -> None:
    """The pipeline: read -> analyse -> index -> detect -> store. Safe to run twice.

    Any failure is stored on the row (status failed) so one bad file never blocks others;
    with `may_retry` a transient database error (`core.transient`: a deadlock, the
    server restarting) is not: the document goes back to queued and `TryAgain` is raised
    for the caller to run this again later.
    """
    document = Document.objects.filter(id=document_id).select_related("collection").first()
    if document is None:
        logger.info("document %s is gone; nothing to process", document_id)
        return
    if document.collection.deleting:
        logger.info("document %s is being deleted with its collection; not processed", document_id)
        return
    try:
        _process(document)
    except DocumentGone:
        logger.info("document %s was deleted while processing", document_id)
    except (UnreadableFile, DetectionError) as error:  # messages written for the user
        _fail(document_id, str(error))
    except Exception as error:  # noqa: BLE001 - stored for the user, logged for us
        if may_retry and transient.is_transient(error):
            rows = Document.objects.filter(id=document_id)
            transient.mark_waiting(rows, status=Document.Status.QUEUED, progress=0)
            raise transient.TryAgain from error
        if not Document.objects.filter(id=document_id).exists():  # e.g. its file went with it
            logger.info("document %s was deleted while processing (%r)", document_id, error)
            return
        logger.exception("processing document %s failed", document_id)
        _fail(document_id, f"Processing failed ({type(error).__name__}: {error}).")


def _process(document: Document) -> None:
    _progress(document.id, 5, status=Document.Status.PROCESSING, error="")
    page = _page_read(document)
    _progress(document.id, 20)
    analysis = analyze(page.text, detector_config())
    _progress(document.id, 45)
    index = PostgresSentenceIndex(model_version=analysis.model_version)
    if _index_replace(document, page, analysis, index):
        copiers_requeue(document)  # now, whatever becomes of this document's own check
    _progress(document.id, 65)
    if document.template:
        passages: list[Passage] = []  # given to everyone: nothing to check
        seen = None
    else:
        seen = snapshot()  # before the lookup: what the check can see (see matches_replace)
        passages, notes = _detect(document, page.text, analysis)
        if notes:
            _progress(document.id, 85, warnings=[*page.warnings, *notes])
    _progress(document.id, 90)
    matches_replace(document, passages, analysis.model_version, seen)
    with transaction.atomic():
        _follow_up(document, page)
        _progress(document.id, 100, status=Document.Status.DONE)


def _follow_up(document: Document, page: boilerplate.Page) -> None:
    """Queue what follows a processed document (re-checks after a template, the
    near-duplicate step, pages whose site template changed) in the transaction that marks it
    done: the messages go through the outbox (`core.queue`), so they are committed with it
    and a broker outage delays them without touching the document. Any other failure here is
    logged and leaves the document done; a transient database error undoes both, for the task
    to run the pipeline again."""
    try:
        with transaction.atomic():
            if document.template:
                recheck_after_template(document.collection_id)
            signals.document_processed.send(sender=Document, document_id=document.id)
            stale = boilerplate.stale_pages(
                document.collection_id, page.site, page.template, exclude=[document.id]
            )
            for stale_page in stale:
                document_recheck(document=stale_page)
    except Exception as error:  # noqa: BLE001 - the document itself is done
        if transient.is_transient(error):
            raise
        logger.exception("queuing the follow-up of document %s failed", document.id)


def _detect(
    document: Document, text: str, analysis: DocumentAnalysis
) -> tuple[list[Passage], list[str]]:
    """The document's passages copied from its scope, the features of its collection's
    templates left out (their text was given to everyone, so sharing it is not copying), and
    notes for the user on what was not counted."""
    scope = selectors.detection_scope_collections(document=document)
    scoped = PostgresSentenceIndex(model_version=analysis.model_version, collections=scope)
    recorder = SpanRecorder(scoped)
    templates = selectors.template_texts(collection_id=document.collection_id)
    given = set().union(*(_template_features(text) for text in templates.values()))
    query = _without_features(analysis, given) if given else analysis
    # No template in the scope is ever a source: the collection's own nor an archive's.
    excluded = {document.id, *selectors.template_ids(collections=scope)}
    texts = SourceTexts(recorder)
    passages = detect_refined(
        text, query, recorder, texts, exclude=excluded, config=detector_config(),
        unit_store=StoredUnits(texts),
    )  # fmt: skip
    if given:
        passages = _outside(passages, _given_ranges(text, analysis, given), text)
    return passages, _common_note(query, scoped, excluded)


def _given_ranges(text: str, analysis: DocumentAnalysis, given: set[int]) -> list[tuple[int, int]]:
    """The character ranges of the sentences that are all template text (every feature of
    theirs is the template's), neighbours separated by blanks only joined."""
    ranges: list[tuple[int, int]] = []
    for sentence in analysis.sentences:
        if sentence.features and given.issuperset(sentence.features):
            if ranges and not text[ranges[-1][1] : sentence.start].strip():
                ranges[-1] = (ranges[-1][0], sentence.end)
            else:
                ranges.append((sentence.start, sentence.end))
    return ranges


def _outside(
    passages: Sequence[Passage], ranges: Sequence[tuple[int, int]], text: str
) -> list[Passage]:
    """`passages` without the query ranges `ranges` (template text).

    Template sentences are never matched, but a passage's borders are extended word by word
    while both texts agree and close passages are joined, which can carry a passage over a
    template both documents hold. Such a stretch agrees word for word, so the source side
    moves by as many characters: a head piece stays anchored at the passage's source start,
    a tail piece at its source end. Pieces shorter than the shortest one-sentence passage
    are dropped."""
    pieces = list(passages)
    for start, end in ranges:
        cut: list[Passage] = []
        for p in pieces:
            if end <= p.start or start >= p.end:
                cut.append(p)
                continue
            if start > p.start:
                head = min(p.source_end, p.source_start + (start - p.start))
                cut.append(replace(p, end=start, source_end=head))
            if end < p.end:
                tail = max(p.source_start, p.source_end - (p.end - end))
                cut.append(replace(p, start=end, source_start=tail))
        pieces = cut
    # A word or two left beside the template ("The" before it) is no copied passage.
    return [p for p in pieces if p.end - p.start >= DEFAULT_CONFIG.min_single_chars]


def _common_note(
    analysis: DocumentAnalysis, scoped: PostgresSentenceIndex, excluded: set[int]
) -> list[str]:
    """Say how many sentences share text with too many documents of the scope to count, and
    which documents hold most of it (many students copying one source look like this too)."""
    if not len(scoped.too_common):
        return []
    common = set(scoped.too_common.tolist())
    affected = sum(1 for s in analysis.sentences if common.intersection(s.features))
    if not affected:
        return []
    note = (
        f"{affected} sentence(s) share wording with more than 1 % (at least 50) of the "
        "documents of this collection and its archives; wording that common is treated as a "
        "stock phrase and not counted as copied."
    )
    # Not the document itself, nor the templates (what everyone was given holds it anyway).
    holders = [d for d, _ in scoped.too_common_holders.most_common() if d not in excluded]
    if holders:
        named = {d.id: d.path for d in Document.objects.filter(id__in=holders[:COMMON_NAMED])}
        names = ", ".join(named[d] for d in holders[:COMMON_NAMED] if d in named)
        note += f" {len(holders)} other documents hold it, most of all: {names}."
    return [note + " If it was given to every student, upload it as a template."]


@functools.lru_cache(maxsize=64)
def _template_features(text: str) -> frozenset[int]:
    """The features of a template's text, analysed once per worker process (every document
    of its collection needs them; a long template took its analysis time per document)."""
    return frozenset(f for s in analyze(text).sentences for f in s.features)


def _without_features(analysis: DocumentAnalysis, given: set[int]) -> DocumentAnalysis:
    sentences = tuple(
        replace(s, features=tuple(f for f in s.features if f not in given))
        for s in analysis.sentences
    )
    return replace(analysis, sentences=sentences)


def _page_read(document: Document) -> boilerplate.Page:
    with document.original.open("rb") as handle:
        data = handle.read()
    read = read_text(document.filename, data)
    text_allowed(document.filename, len(read.text))
    site = boilerplate.page_site(data, read.format, document.folder)
    template = boilerplate.site_template(
        document.collection_id, site, [read.text], exclude=[document.id]
    )
    try:
        return boilerplate.page_stripped(read, site, template)
    except UnreadableFile as error:
        raise UnreadableFile(f"{document.filename}: {error}") from error


def text_allowed(filename: str, chars: int) -> None:
    """Refuse a text longer than `MAX_TEXT_CHARS` (a compressed file can hold much more text
    than its upload size): the worker's memory grows with the text (about 20 MB per million
    characters), and one document must not take the worker down."""
    limit = settings.MAX_TEXT_CHARS
    if chars > limit:
        raise UnreadableFile(
            f"{filename}: its text is {chars:,} characters long; the limit is {limit:,}. "
            "Split it into smaller documents."
        )


def _index_replace(
    document: Document,
    page: boilerplate.Page,
    analysis: DocumentAnalysis,
    index: PostgresSentenceIndex,
) -> bool:
    """Replace the document's text, sentences and postings in one transaction (re-run safe);
    returns whether the text differs from the one indexed before."""
    with transaction.atomic():
        lock_document(document.id)
        # Compared on the server by digest: the texts (up to megabytes) are not sent for this.
        digest = hashlib.md5(page.text.encode(), usedforsecurity=False).hexdigest()
        changed = (
            Document.objects.filter(id=document.id)
            .exclude(text="")
            .exclude(RawSQL("md5(text) = %s", [digest], output_field=BooleanField()))
            .exists()
        )
        index.remove(document.id)
        if changed:  # StoredUnits never reads them (md5), but they would only take space
            DocumentUnits.objects.filter(document_id=document.id).delete()
        citations = find_citations(page.text, page.block_quotes).as_json()
        Document.objects.filter(id=document.id).update(
            text=page.text,
            citations=citations,
            **analysis_fields(analysis),
            warnings=list(page.warnings),
            site=page.site,
            boilerplate_lines=list(page.removed),
            **boilerplate.page_keys(page),
            indexed_xid=RawSQL("pg_current_xact_id()::text::bigint", []),
        )
        document.text, document.citations = page.text, citations
        index.add(document.id, analysis)
    return changed


def analysis_fields(analysis: DocumentAnalysis) -> dict[str, object]:
    """What a Document stores of its analysis (the postings aside): sentence spans, language
    and feature model."""
    return {
        "sentence_starts": [s.start for s in analysis.sentences],
        "sentence_ends": [s.end for s in analysis.sentences],
        "language": analysis.language,
        "model_version": analysis.model_version,
    }


def _progress(document_id: int, progress: int, **fields: object) -> None:
    Document.objects.filter(id=document_id).update(progress=progress, **fields)


def _fail(document_id: int, message: str) -> None:
    Document.objects.filter(id=document_id).update(
        status=Document.Status.FAILED, error=message[:2000], progress=100
    )
