"""Deleting collections and documents, with their files, postings and the scores they touched."""

from __future__ import annotations

import functools
import logging
from collections import defaultdict
from collections.abc import Sequence

from django.core.files.storage import Storage, default_storage
from django.db import transaction

from core import lease, queue
from documents.models import ArchiveImport, Collection, Document, Match
from documents.services.locks import lock_collection
from documents.services.matches import similarity_refresh, similarity_refresh_elsewhere
from documents.services.requeue import templates_changed
from documents.task_names import DELETE_TASK

logger = logging.getLogger(__name__)


# Documents deleted per transaction when a collection goes: each batch's postings go in one
# statement of the delete trigger, which must stay short enough not to hold locks for seconds.
DELETE_BATCH = 500


def collection_delete(*, collection: Collection) -> None:
    """Hide the collection at once; a task then deletes its documents (postings, matches,
    files) in batches and the collection itself (`collection_purge`)."""
    collection_id = collection.id
    with transaction.atomic():
        Collection.objects.filter(id=collection_id).update(deleting=True)
        # Other collections stop choosing it as an archive now, not when the task is done.
        Collection.archives.through.objects.filter(to_collection_id=collection_id).delete()
        queue.enqueue_on_commit(DELETE_TASK, collection_id)


def collection_purge(*, collection_id: int) -> None:
    """Delete a collection marked `deleting`, its documents batch by batch (the task's body;
    safe to run again after an interruption: it goes on where it stopped)."""
    if not Collection.objects.filter(id=collection_id, deleting=True).exists():
        return
    while True:
        with transaction.atomic():
            lock_collection(collection_id)
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
    ids = list(Collection.objects.filter(deleting=True).values_list("id", flat=True))
    for collection_id in ids:
        queue.enqueue(DELETE_TASK, collection_id)
    return len(ids)


def collections_delete_stale_requeue() -> int:
    """Queue again the deletions of collections that nobody works on any more (`core.lease`);
    returns how many."""
    return lease.requeue_stale(Collection.objects.filter(deleting=True), DELETE_TASK)


def document_delete(*, document: Document) -> None:
    """Remove a document with its postings, and refresh the similarity of documents it fed.
    A template's collection is checked again: its text counts as copied from now on, and
    reports made without it would disagree with the ones made after."""
    with transaction.atomic():
        lock_collection(document.collection_id)
        _documents_delete([document.id])
        if document.template:
            templates_changed(document.collection_id)


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
        similarity_refresh(other)
    transaction.on_commit(lambda: similarity_refresh_elsewhere(elsewhere))


def _files_delete(files: Sequence[tuple[Storage, str | None]]) -> None:
    for storage, name in files:
        if name:
            storage.delete(name)
