"""Row locks that order concurrent work on one document or one collection."""

from __future__ import annotations

import logging

from django.db import connection

from documents.models import Document

logger = logging.getLogger(__name__)


class DocumentGone(Exception):
    """The document was deleted while it was being processed."""


def lock_document(document_id: int) -> None:
    """Hold the row until commit, so a concurrent delete waits for us (and its trigger then
    removes what we wrote) or has already happened (and we stop)."""
    if not Document.objects.select_for_update().filter(id=document_id).exists():
        raise DocumentGone(document_id)


def lock_collection(collection_id: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [collection_id])
