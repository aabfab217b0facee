"""Writes: every change to collections, documents and results goes through these functions."""

from __future__ import annotations

import functools
import hashlib
import logging
import posixpath
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.base import ContentFile
from django.core.files.storage import Storage, default_storage
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.db.models.expressions import RawSQL

from dedup.services import dedup_assign_enqueue
from detection import DEFAULT_CONFIG, DetectionError, DocumentAnalysis, Passage, analyze, coverage
from detection.detector import detect_refined
from documents import boilerplate, broker, selectors, transient
from documents.extraction import ArchiveMember, ExtractionError, iter_archive
from documents.extraction.errors import size_text
from documents.extraction.formats import resolve as resolve_format
from documents.models import ArchiveImport, Collection, Document, Match, MatchPassage
from documents.pg_index import PostgresSentenceIndex
from documents.reading import UnreadableFile, read_text
from documents.sources import SourceTexts, SpanRecorder

logger = logging.getLogger(__name__)


class UploadError(ValueError):
    """The upload is refused; the message tells the user why."""


# How many of the documents holding a too-common passage a warning names.
COMMON_NAMED = 5


class TemplateError(UploadError):
    """A template where there can be none (an archive)."""


class _DocumentGone(Exception):
    """The document was deleted while it was being processed."""


@dataclass(frozen=True)
class BatchUpload:
    """What a ZIP batch became: one document per readable member, and what was skipped."""

    documents: tuple[Document, ...]
    skipped: tuple[tuple[str, str], ...]  # (path inside the archive, reason)


def is_batch(filename: str) -> bool:
    return filename.lower().endswith(".zip")


# --- collections ----------------------------------------------------------------------------


def collection_create(
    *, owner: AbstractBaseUser, name: str, kind: str = Collection.Kind.ASSIGNMENT
) -> Collection:
    name, kind = _collection_fields(name, kind)
    return Collection.objects.create(owner=owner, name=name, kind=kind)


def _collection_fields(name: str, kind: str) -> tuple[str, str]:
    name = name.strip()
    if not name:
        raise ValueError("A collection needs a name.")
    if kind not in Collection.Kind.values:
        raise ValueError(f"kind must be one of {', '.join(Collection.Kind.values)}.")
    return name[:200], kind


def collection_update(*, collection: Collection, name: str, kind: str) -> Collection:
    """Rename the collection or change its kind.

    An archive turned into an assignment leaves the archive selections of the owner's other
    collections; an assignment turned into an archive drops its own selection (archives are not
    checked against archives). Documents processed from then on see the new scopes; reports
    made before stay as they are until their documents are checked again.
    """
    name, kind = _collection_fields(name, kind)
    with transaction.atomic():
        if kind != collection.kind:
            if collection.kind == Collection.Kind.ARCHIVE:
                Collection.archives.through.objects.filter(to_collection=collection).delete()
            else:
                collection.archives.clear()
                collection.all_archives = True  # its own choice is gone, not lost
        collection.name, collection.kind = name, kind
        collection.save(update_fields=["name", "kind", "all_archives"])
    return collection


# Documents deleted per transaction when a collection goes: each batch's postings go in one
# statement of the delete trigger (2,000 documents took ~8 s at 100k indexed documents).
DELETE_BATCH = 500


def collection_delete(*, collection: Collection) -> None:
    """Hide the collection at once; a task then deletes its documents (postings, matches,
    files) in batches and the collection itself (`collection_purge`)."""
    from documents.tasks import collection_delete_task

    collection_id = collection.id
    with transaction.atomic():
        Collection.objects.filter(id=collection_id).update(deleting=True)
        # Other collections stop choosing it as an archive now, not when the task is done.
        Collection.archives.through.objects.filter(to_collection_id=collection_id).delete()
        transaction.on_commit(lambda: collection_delete_task.delay(collection_id))


def collection_purge(*, collection_id: int) -> None:
    """Delete a collection marked `deleting`, its documents batch by batch (the task's body;
    safe to run again after an interruption: it goes on where it stopped)."""
    if not Collection.objects.filter(id=collection_id, deleting=True).exists():
        return
    while True:
        with transaction.atomic():
            _lock_collection(collection_id)
            batch = list(
                Document.objects.filter(collection_id=collection_id)
                .order_by("id")
                .values_list("id", flat=True)[:DELETE_BATCH]
            )
            if not batch:
                # Checked empty and deleted in one transaction; uploads are refused since the
                # collection was marked (`collection_open`), so nothing can slip in between.
                uploads = [
                    (default_storage, where)
                    for job in ArchiveImport.objects.filter(collection_id=collection_id)
                    for where, _ in job.uploads
                ]
                Collection.objects.filter(id=collection_id, deleting=True).delete()
                transaction.on_commit(functools.partial(_files_delete, uploads))
                return
            _documents_delete(batch)


def collections_delete_resume() -> int:
    """Queue the deletion of collections marked `deleting` again (their task may have been
    lost, see `documents_resume`); returns how many."""
    from documents.tasks import collection_delete_task

    ids = list(Collection.objects.filter(deleting=True).values_list("id", flat=True))
    for collection_id in ids:
        collection_delete_task.delay(collection_id)
    return len(ids)


def collection_archives_set(*, collection: Collection, archive_ids: Iterable[int]) -> None:
    """Check `collection` against these archives of its owner (none selected: all of them)."""
    wanted = list(archive_ids)
    allowed = Collection.objects.filter(
        owner=collection.owner, kind=Collection.Kind.ARCHIVE, deleting=False, id__in=wanted
    ).exclude(id=collection.id)
    with transaction.atomic():
        collection.archives.set(allowed)
        # Only an empty choice means all: ids that are no (longer an) archive leave none.
        collection.all_archives = not wanted
        collection.save(update_fields=["all_archives"])


# --- documents ------------------------------------------------------------------------------


def document_upload(
    *,
    collection: Collection,
    filename: str,
    data: bytes,
    folder: str = "",
    enqueue: bool = True,
    template: bool = False,
) -> Document:
    """Store the original file and queue its processing once the row is committed
    (`enqueue=False`: the caller runs `document_process` itself). A `template` is text every
    submission was given: never checked, and left out of the other documents' checks."""
    filename = file_name(filename)
    if template:
        _template_allowed(collection)
    file_accepted(filename, data)
    with transaction.atomic():
        collection_open(collection)
        document = Document(
            collection=collection,
            filename=filename[:255],
            folder=folder.strip("/")[:500],
            size=len(data),
            checksum=hashlib.sha256(data).hexdigest(),
            template=template,
        )
        document.original.save(filename, ContentFile(data), save=False)
        document.save()
        if enqueue:
            document_enqueue(document=document)
    return document


def document_upload_batch(
    *, collection: Collection, filename: str, data: bytes, template: bool = False
) -> BatchUpload:
    """Unpack a ZIP batch into documents, keeping each member's folder as metadata."""
    if template:
        _template_allowed(collection)
    size_allowed(filename, data)
    documents: list[Document] = []
    skipped: list[tuple[str, str]] = []
    try:
        with transaction.atomic():
            collection_open(collection)
            for member in iter_archive(filename, data):
                if not isinstance(member, ArchiveMember):
                    skipped.append((member.path, _reason(member.reason)))
                    continue
                try:
                    documents.append(_member_upload(collection, member, template))
                except UploadError as error:
                    skipped.append((member.path, _reason(str(error), member.path)))
    except ExtractionError as error:
        raise UploadError(f"{filename}: {error}") from error
    if not documents and not skipped:
        raise UploadError(f"{filename} holds no documents.")
    if not documents:
        reasons = "; ".join(f"{path} ({reason})" for path, reason in skipped[:5])
        more = f" and {len(skipped) - 5} more" if len(skipped) > 5 else ""
        raise UploadError(f"{filename} holds no document that can be checked: {reasons}{more}.")
    return BatchUpload(tuple(documents), tuple(skipped))


def file_name(filename: str) -> str:
    """An uploaded file's name without the folders a browser may send; UploadError if none."""
    filename = (filename or "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    if not filename:
        raise UploadError("The file has no name.")
    return filename


def file_accepted(filename: str, data: bytes, *, batch: bool = False) -> None:
    """Refuse at once (UploadError) an empty or too large file, and one that is no document:
    told now, as a ZIP batch tells its members, not as a failed document later. A `batch` is
    unpacked later, its members judged one by one."""
    if not data:
        raise UploadError(f"{filename} is empty.")
    size_allowed(filename, data)
    if batch:
        return
    try:
        resolve_format(filename, data)
    except ExtractionError as error:
        raise UploadError(f"{filename}: {error}.") from error


def size_allowed(filename: str, data: bytes) -> None:
    if len(data) > settings.MAX_UPLOAD_BYTES:
        raise UploadError(
            f"{filename} is {size_text(len(data))}; the limit is "
            f"{size_text(settings.MAX_UPLOAD_BYTES)}."
        )


def _reason(text: str, path: str = "") -> str:
    """Why a ZIP member was skipped, without what the listing already says (its name, and
    that it was skipped): "empty.txt is empty." -> "empty"; "not a document (.exe): skipped"
    -> "not a document (.exe)"."""
    text = text.removesuffix(": skipped")
    name = posixpath.basename(path)
    if name and text.startswith((name + " ", name + ": ")):
        text = text[len(name) + 1 :].lstrip()
        text = text.removeprefix("is ").rstrip(".")
    return text


def collection_open(collection: Collection) -> None:
    """Refuse an upload into a collection being deleted. The row stays share-locked until the
    upload commits, so `collection_delete` (which updates the row) waits for it, and the purge
    then sees and deletes its documents."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT 1 FROM {Collection._meta.db_table} WHERE id = %s AND NOT deleting FOR SHARE",
            [collection.id],
        )
        if cursor.fetchone() is not None:
            return
    raise UploadError(f"The collection {collection.name!r} is being deleted or no longer exists.")


def _member_upload(collection: Collection, member: ArchiveMember, template: bool) -> Document:
    return document_upload(
        collection=collection,
        filename=posixpath.basename(member.path),
        data=member.data,
        folder=member.folder,
        template=template,
    )


def document_enqueue(*, document: Document) -> None:
    """Queue processing after the surrounding transaction commits (the worker must see it)."""
    from documents.tasks import document_process_task

    document_id = document.id
    transaction.on_commit(lambda: document_process_task.delay(document_id))


def document_recheck(*, document: Document) -> None:
    """Run the pipeline again (e.g. after the archive selection changed); replaces results."""
    with transaction.atomic():
        Document.objects.filter(id=document.id).update(
            status=Document.Status.QUEUED, progress=0, error=""
        )
        document_enqueue(document=document)


def document_template_set(*, document: Document, template: bool) -> None:
    """Mark a document as a template (text every submission was given) or not any more. A
    new template is processed again, which then re-checks the collection without its text;
    a former template's collection is re-checked with it (the document included)."""
    if document.template == template:
        return
    if template:
        _template_allowed(document.collection)
    Document.objects.filter(id=document.id).update(template=template)
    document.template = template
    if template:
        document_recheck(document=document)
    else:
        _templates_changed(document.collection_id)


def _template_allowed(collection: Collection) -> None:
    """Templates are what an assignment gave every student; an archive has none (its every
    document is someone's possible source)."""
    if collection.kind == Collection.Kind.ARCHIVE:
        raise TemplateError(
            f"{collection.name} is an archive: templates (text every submission was given) "
            "belong to an assignment."
        )


def collection_recheck(*, collection_id: int) -> int:
    """Queue every finished document of the collection that is checked (not its templates:
    their text is all they need) for the pipeline again; returns how many."""
    return documents_reanalyze(
        documents=selectors.checked_documents(collection_id=collection_id),
        collection_id=collection_id,
    )


def document_delete(*, document: Document) -> None:
    """Remove a document with its postings, and refresh the similarity of documents it fed.
    A template's collection is checked again: its text counts as copied from now on, and
    reports made without it would disagree with the ones made after."""
    with transaction.atomic():
        _lock_collection(document.collection_id)
        _documents_delete([document.id])
        if document.template:
            _templates_changed(document.collection_id)


def _documents_delete(ids: Sequence[int]) -> None:
    """Delete documents of one collection (the caller holds a transaction and that
    collection's lock): their postings go with the rows (the delete trigger of migrations
    0003/0012, recorded df lowered), their files once the deletion is committed, and the
    documents they were a source of get their similarity refreshed.

    Sources in the same collection are refreshed now, under the lock held; documents of other
    collections (an assignment checked against this archive) once this is committed, each
    under its own collection's lock, as the pipeline writes them: holding two collection
    locks at once could deadlock with a deletion in the other collection.
    """
    affected = (
        Document.objects.filter(
            id__in=Match.objects.filter(source_id__in=ids).values("document_id")
        )
        .exclude(id__in=ids)
        .values_list("id", "collection_id")
    )
    own = Document.objects.filter(id__in=ids).values_list("collection_id", flat=True).first()
    elsewhere: dict[int, list[int]] = defaultdict(list)
    same: list[int] = []
    for document_id, collection_id in affected:
        if collection_id == own:
            same.append(document_id)
        else:
            elsewhere[collection_id].append(document_id)
    files = [
        (d.original.storage, d.original.name)
        for d in Document.objects.filter(id__in=ids).only("id", "original")
    ]
    Document.objects.filter(id__in=ids).delete()
    transaction.on_commit(lambda: _files_delete(files))
    for other in Document.objects.filter(id__in=same):
        _similarity_refresh(other)
    transaction.on_commit(lambda: _similarity_refresh_elsewhere(elsewhere))


def _similarity_refresh_elsewhere(by_collection: dict[int, list[int]]) -> None:
    for collection_id, document_ids in sorted(by_collection.items()):
        with transaction.atomic():
            _lock_collection(collection_id)
            for other in Document.objects.filter(id__in=document_ids):
                _similarity_refresh(other)


def _files_delete(files: Sequence[tuple[Storage, str]]) -> None:
    for storage, name in files:
        if name:
            storage.delete(name)


def _recheck_after_template(collection_id: int) -> None:
    """The collection's reports made without this template's text are out of date (see
    `_templates_changed`). Never fails the template itself: a failure here is logged."""
    try:
        _templates_changed(collection_id)
    except Exception:  # noqa: BLE001 - the template itself was processed fine
        logger.exception("re-checking collection %s after a template failed", collection_id)


def _templates_changed(collection_id: int) -> None:
    """A template was read, deleted or un-marked: every checked document of the collection
    is queued again, the ones being processed right now too (they may have read the
    templates before the change was committed)."""
    _requeue(selectors.checked_documents(collection_id=collection_id), collection_id)


def _requeue(documents: QuerySet[Document], collection_id: int | None = None) -> None:
    """Queue `documents` for the pipeline again on the bulk queue: the finished ones (once,
    see `documents_reanalyze`) and, once more, the ones being processed right now (they may
    have read what has just changed; a second run of the pipeline is harmless)."""
    documents_reanalyze(documents=documents, collection_id=collection_id)
    running = documents.filter(status=Document.Status.PROCESSING).values_list("id", flat=True)
    ids = list(running)
    transaction.on_commit(lambda: _enqueue_ids(ids, bulk=True))


def documents_reanalyze(*, documents: QuerySet[Document], collection_id: int | None = None) -> int:
    """Queue processed documents for the whole pipeline again (e.g. the stale ones after an
    upgrade changed the feature model, `selectors.documents_stale`); returns how many.

    Documents already queued or in progress are left alone, so running this twice does not
    queue anything twice. Each document's matches are replaced when it is processed, in both
    directions, so the reports are complete again once all of them are done.
    """
    with transaction.atomic():
        if collection_id is not None:
            # Workers storing matches hold this lock while they update rows of the
            # collection in no particular order: taking it first rules out a deadlock.
            _lock_collection(collection_id)
        # Locked, so a concurrent call waits and then finds these rows queued (PostgreSQL
        # re-checks the status of a row it waited for): no document is queued twice. NO KEY:
        # inserting a Match (its foreign keys take KEY SHARE) is not blocked by it.
        ids = list(
            documents.filter(status__in=[Document.Status.DONE, Document.Status.FAILED])
            .select_for_update(of=("self",), no_key=True)
            .order_by("id")
            .values_list("id", flat=True)
        )
        Document.objects.filter(id__in=ids).update(
            status=Document.Status.QUEUED, progress=0, error=""
        )
        transaction.on_commit(lambda: _enqueue_ids(ids, bulk=True))
    return len(ids)


def documents_resume() -> int:
    """Queue again the unfinished documents (queued or processing) whose message is not in
    the broker (`documents.broker`): it was lost when Redis or a worker stopped. Returns how
    many. When the broker cannot be read, every unfinished document is queued again: a
    duplicate message only costs a second run of the pipeline, a lost one leaves the
    document waiting for ever.

    Meant for start-up, before the workers run (`make run`): a document that a running worker
    is processing right now has no message waiting either, and would be processed twice.
    """
    waiting = broker.waiting_document_ids()
    unfinished = Document.objects.filter(
        status__in=[Document.Status.QUEUED, Document.Status.PROCESSING],
        collection__deleting=False,
    )
    with transaction.atomic():
        ids = [i for i in unfinished.order_by("id").values_list("id", flat=True)
               if waiting is None or i not in waiting]  # fmt: skip
        Document.objects.filter(id__in=ids).update(status=Document.Status.QUEUED, progress=0)
        transaction.on_commit(lambda: _enqueue_ids(ids))
    return len(ids)


def _enqueue_ids(ids: Sequence[int], *, bulk: bool = False) -> None:
    """Queue the documents' processing; `bulk` work waits behind uploads and single checks."""
    from documents.tasks import document_process_task

    queue = settings.DOCUMENTS_BULK_QUEUE if bulk else settings.DOCUMENTS_QUEUE
    for document_id in ids:
        document_process_task.apply_async((document_id,), queue=queue)


def document_process(*, document_id: int, may_retry: bool = False) -> None:
    """The pipeline: read -> analyse -> index -> detect -> store. Safe to run twice.

    Any failure is stored on the row (status failed) so one bad file never blocks others;
    with `may_retry` a transient database error (`documents.transient`: a deadlock, the
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
    except _DocumentGone:
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
    analysis = analyze(page.text)
    _progress(document.id, 45)
    index = PostgresSentenceIndex(model_version=analysis.model_version)
    if _index_replace(document, page, analysis, index):
        _copiers_requeue(document)  # now, whatever becomes of this document's own check
    _progress(document.id, 65)
    if document.template:
        passages: list[Passage] = []  # given to everyone: nothing to check
        seen = None
    else:
        seen = _snapshot()  # before the lookup: what the check can see (see _matches_replace)
        passages, notes = _detect(document, page.text, analysis)
        if notes:
            _progress(document.id, 85, warnings=[*page.warnings, *notes])
    _progress(document.id, 90)
    _matches_replace(document, passages, analysis.model_version, seen)
    _progress(document.id, 100, status=Document.Status.DONE)
    if document.template:
        _recheck_after_template(document.collection_id)
    dedup_assign_enqueue(document_id=document.id)
    stale = boilerplate.stale_pages(
        document.collection_id, page.site, page.template, exclude=[document.id]
    )
    for stale_page in stale:
        document_recheck(document=stale_page)


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
    passages = detect_refined(text, query, recorder, SourceTexts(recorder), exclude=excluded)
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
    site = boilerplate.page_site(data, read.format, document.folder)
    template = boilerplate.site_template(
        document.collection_id, site, [read.text], exclude=[document.id]
    )
    try:
        return boilerplate.page_stripped(read, site, template)
    except UnreadableFile as error:
        raise UnreadableFile(f"{document.filename}: {error}") from error


def _index_replace(
    document: Document,
    page: boilerplate.Page,
    analysis: DocumentAnalysis,
    index: PostgresSentenceIndex,
) -> bool:
    """Replace the document's text, sentences and postings in one transaction (re-run safe);
    returns whether the text differs from the one indexed before."""
    with transaction.atomic():
        _lock_document(document.id)
        # Compared on the server: the old text (up to megabytes) is not fetched for this.
        changed = (
            Document.objects.filter(id=document.id).exclude(Q(text="") | Q(text=page.text)).exists()
        )
        index.remove(document.id)
        Document.objects.filter(id=document.id).update(
            text=page.text,
            **analysis_fields(analysis),
            warnings=list(page.warnings),
            site=page.site,
            boilerplate_lines=list(page.removed),
            **boilerplate.page_keys(page),
            indexed_xid=RawSQL("pg_current_xact_id()::text::bigint", []),
        )
        document.text = page.text
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


def _copiers_requeue(document: Document) -> None:
    """Queue again the documents of other collections that copied from `document`, whose
    text has changed: their passages point into the old text, and only their own checks
    rewrite them. Not inside the index transaction: it holds the document's row, which a
    copier storing its match with it must share, while the copier's row is locked."""
    copiers = Match.objects.filter(source=document.id).exclude(
        document__collection_id=document.collection_id
    )
    _requeue(Document.objects.filter(id__in=copiers.values("document_id")))


def _snapshot() -> str:
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


def _matches_replace(
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
        _lock_collection(own)
        _lock_document(document.id)
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
        _similarity_refresh(document)
        for other in Document.objects.filter(id__in=peers - kept):
            _similarity_refresh(other)


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
        transaction.on_commit(lambda: _similarity_refresh_elsewhere(elsewhere))


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
    )


def _similarity_refresh(document: Document) -> None:
    """Overall similarity: the share of the document's text covered by any source.

    Two single-table reads, not a join: with the statistics of match tables vacuumed while
    empty (reltuples 0: a new installation, or the tests) PostgreSQL expects one row on each
    side and joined them with a nested loop reading every match for every passage, once for
    each document of a batch (a batch of 60 in one transaction took over 10 minutes)."""
    sources = dict(Match.objects.filter(document=document).values_list("id", "source_id"))
    rows = MatchPassage.objects.filter(match_id__in=list(sources)).values_list(
        "match_id", "start", "end", "source_start", "source_end", "score"
    )
    passages = [
        Passage(source=sources[m], start=s, end=e, source_start=ss, source_end=se, score=sc)
        for m, s, e, ss, se, sc in (rows if sources else ())
    ]
    value = coverage(len(document.text), passages) if document.text else 0.0
    Document.objects.filter(id=document.id).update(similarity=value)


def _lock_document(document_id: int) -> None:
    """Hold the row until commit, so a concurrent delete waits for us (and its trigger then
    removes what we wrote) or has already happened (and we stop)."""
    if not Document.objects.select_for_update().filter(id=document_id).exists():
        raise _DocumentGone(document_id)


def _lock_collection(collection_id: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [collection_id])


def _progress(document_id: int, progress: int, **fields: object) -> None:
    Document.objects.filter(id=document_id).update(progress=progress, **fields)


def _fail(document_id: int, message: str) -> None:
    Document.objects.filter(id=document_id).update(
        status=Document.Status.FAILED, error=message[:2000], progress=100
    )
