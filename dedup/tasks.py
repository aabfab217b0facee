"""Celery entry points: ids in, one service call, harmless to run twice; a transient database
error runs the task again later (`core.transient`)."""

from celery import Task, shared_task

from core import lease, transient
from dedup import services
from dedup.models import DedupRun
from dedup.task_names import ASSIGN_TASK, RUN_TASK
from documents.models import Document


@shared_task(bind=True, name=RUN_TASK, acks_late=True)
def dedup_run_task(self: Task, run_id: int) -> None:
    """Cluster a collection; returns quietly when the run has been deleted meanwhile."""
    with lease.held(DedupRun.objects.filter(id=run_id)):
        transient.attempt(
            self, lambda may_retry: services.dedup_run_execute(run_id=run_id, may_retry=may_retry)
        )


@shared_task(bind=True, name=ASSIGN_TASK, acks_late=True)
def dedup_assign_document(self: Task, document_id: int) -> None:
    """Stream a processed document into its collection's latest runs (quiet when it is gone)."""
    transient.attempt(self, lambda _: _assign(document_id))


def _assign(document_id: int) -> None:
    document = Document.objects.filter(id=document_id).first()
    if document is not None:
        services.dedup_document_assign(document=document)
