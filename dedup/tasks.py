"""Celery entry points: ids in, one service call, harmless to run twice."""

from celery import shared_task

from dedup import services
from documents.models import Document


@shared_task(name="dedup.run", acks_late=True)
def dedup_run_task(run_id: int) -> None:
    """Cluster a collection; returns quietly when the run has been deleted meanwhile."""
    services.dedup_run_execute(run_id=run_id)


@shared_task(name="dedup.assign_document", acks_late=True)
def dedup_assign_document(document_id: int) -> None:
    """Stream a processed document into its collection's latest runs (quiet when it is gone)."""
    document = Document.objects.filter(id=document_id).first()
    if document is not None:
        services.dedup_document_assign(document=document)
