"""Queueing documents for (re)processing: new uploads, rechecks, stale analyses, lost messages."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet

from core import broker, lease, queue
from documents import selectors
from documents.models import Document, Match
from documents.services.locks import lock_collection
from documents.task_names import PROCESS_TASK

logger = logging.getLogger(__name__)


def document_enqueue(*, document: Document) -> None:
    """Queue processing after the surrounding transaction commits (the worker must see it)."""
    document_id = document.id
    queue.enqueue_on_commit(PROCESS_TASK, document_id)


def document_recheck(*, document: Document) -> None:
    """Run the pipeline again (e.g. after the archive selection changed); replaces results."""
    with transaction.atomic():
        Document.objects.filter(id=document.id).update(
            status=Document.Status.QUEUED, progress=0, error=""
        )
        document_enqueue(document=document)


def recheck_after_template(collection_id: int) -> None:
    """The collection's reports made without this template's text are out of date (see
    `templates_changed`). Never fails the template itself: a failure here is logged."""
    try:
        with transaction.atomic():  # a savepoint when the caller holds a transaction
            templates_changed(collection_id)
    except Exception:  # noqa: BLE001 - the template itself was processed fine
        logger.exception("re-checking collection %s after a template failed", collection_id)


def templates_changed(collection_id: int) -> None:
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
            lock_collection(collection_id)
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
    the broker (`core.broker`): it was lost when Redis or a worker stopped. Returns how
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


def documents_stale_requeue() -> int:
    """Queue again the unfinished documents that nobody works on any more (their lease ran
    out: a worker died, the broker lost the message, a retry could not be sent) and whose
    message waits neither in the broker nor in the outbox (`core.lease`); returns how many.
    Safe while workers run: what they process holds a lease."""
    unfinished = Document.objects.filter(
        status__in=[Document.Status.QUEUED, Document.Status.PROCESSING],
        collection__deleting=False,
    )
    return lease.requeue_stale(unfinished, PROCESS_TASK, status=Document.Status.QUEUED, progress=0)


def _enqueue_ids(ids: Sequence[int], *, bulk: bool = False) -> None:
    """Queue the documents' processing; `bulk` work waits behind uploads and single checks."""
    name = settings.DOCUMENTS_BULK_QUEUE if bulk else settings.DOCUMENTS_QUEUE
    queue.enqueue_many(PROCESS_TASK, [(document_id,) for document_id in ids], queue=name)


def copiers_requeue(document: Document) -> None:
    """Queue again the documents of other collections that copied from `document`, whose
    text has changed: their passages point into the old text, and only their own checks
    rewrite them. Not inside the index transaction: it holds the document's row, which a
    copier storing its match with it must share, while the copier's row is locked."""
    copiers = Match.objects.filter(source=document.id).exclude(
        document__collection_id=document.collection_id
    )
    _requeue(Document.objects.filter(id__in=copiers.values("document_id")))
