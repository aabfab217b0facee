"""Celery entry points: ids in, one service call, harmless to run twice."""

from celery import shared_task

from documents import imports, services


@shared_task(name="documents.process", acks_late=True)
def document_process_task(document_id: int) -> None:
    """Process a document; returns quietly when its row has been deleted meanwhile."""
    services.document_process(document_id=document_id)


@shared_task(name="documents.delete_collection", acks_late=True)
def collection_delete_task(collection_id: int) -> None:
    """Delete a collection marked for deletion, with its documents (resumable)."""
    services.collection_purge(collection_id=collection_id)


@shared_task(name="documents.import_archive", acks_late=True)
def archive_import_task(import_id: int) -> None:
    """Import an archive's uploaded files in bulk (resumable: stored content is skipped)."""
    imports.import_run(import_id=import_id)
