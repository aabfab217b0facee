"""What the stored similarities count: a collection's exclusions and its submission times.

Both are applied to the stored passages (`documents.exclusions`), so changing them recomputes
the similarities at once, without analysing any document again.
"""

from __future__ import annotations

import datetime

from django.db import transaction
from django.db.models import Q

from core import queue
from documents.models import Collection, Document, Match
from documents.services.errors import CollectionError, DocumentError
from documents.services.locks import lock_collection
from documents.services.matches import similarity_refresh
from documents.task_names import REFRESH_TASK

MAX_MATCH_WORDS = 1000
# Up to this many processed documents a collection's similarities are recomputed in the
# request (a class: well under a second); a larger one (an archive) by a task, while its
# reports, computed when read, follow the new settings at once.
REFRESH_IN_REQUEST = 300


def collection_exclusions_set(
    *,
    collection: Collection,
    exclude_quotes: bool | None = None,
    exclude_bibliography: bool | None = None,
    min_match_words: int | None = None,
) -> Collection:
    """Change what the collection's reports leave out (None: unchanged) and recompute the
    stored similarities of its documents and pairs (by a task for a large collection)."""
    if min_match_words is not None and not 0 <= min_match_words <= MAX_MATCH_WORDS:
        raise CollectionError(
            f"min_match_words must be a whole number from 0 to {MAX_MATCH_WORDS}.",
            field="min_match_words",
        )
    wanted = {
        "exclude_quotes": exclude_quotes,
        "exclude_bibliography": exclude_bibliography,
        "min_match_words": min_match_words,
    }
    changed = {k: v for k, v in wanted.items() if v is not None and getattr(collection, k) != v}
    if not changed:
        return collection
    with transaction.atomic():
        for name, value in changed.items():
            setattr(collection, name, value)
        collection.save(update_fields=list(changed))
        processed = Document.objects.filter(
            collection=collection, status=Document.Status.DONE, template=False
        )
        if processed.count() <= REFRESH_IN_REQUEST:
            collection_similarity_refresh(collection_id=collection.id)
        else:
            queue.enqueue_on_commit(REFRESH_TASK, collection.id)
    return collection


def document_submitted_set(*, document: Document, submitted_at: datetime.datetime) -> None:
    """Say when the document was handed in; its similarity and those of the documents it
    shares passages with follow (the earlier of two documents is the original)."""
    if submitted_at.tzinfo is None:
        raise DocumentError(
            "submitted_at needs a time zone (e.g. 2026-11-27T09:30:00+01:00 or ...Z).",
            field="submitted_at",
        )
    with transaction.atomic():
        lock_collection(document.collection_id)
        Document.objects.filter(id=document.id).update(submitted_at=submitted_at)
        document.submitted_at = submitted_at
        pairs = Match.objects.filter(Q(document=document) | Q(source=document))
        peers = {i for pair in pairs.values_list("document_id", "source_id") for i in pair}
        for affected in Document.objects.filter(
            id__in=peers | {document.id},
            collection_id=document.collection_id,
            status=Document.Status.DONE,
            template=False,
        ).select_related("collection"):
            similarity_refresh(affected)


def collection_similarity_refresh(*, collection_id: int) -> None:
    """Recompute the stored similarities of the collection's processed documents (and of
    their matches) from their passages; harmless to run twice."""
    with transaction.atomic():
        lock_collection(collection_id)
        for document in Document.objects.filter(
            collection_id=collection_id, status=Document.Status.DONE, template=False
        ).select_related("collection"):
            similarity_refresh(document)
