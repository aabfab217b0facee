"""Celery entry points: ids in, one service call, harmless to run twice; a transient database
error runs the task again later (`core.transient`)."""

import logging

from celery import Task, shared_task
from celery.exceptions import Retry

from core import lease, queue, transient
from dedup import services
from dedup.models import DedupRun
from dedup.task_names import ASSIGN_TASK, RUN_TASK
from documents.models import Document

logger = logging.getLogger(__name__)


@shared_task(bind=True, name=RUN_TASK, acks_late=True)
def dedup_run_task(self: Task, run_id: int) -> None:
    """Cluster a collection; returns quietly when the run has been deleted meanwhile."""
    with lease.held(DedupRun.objects.filter(id=run_id)):
        transient.attempt(
            self, lambda may_retry: services.dedup_run_execute(run_id=run_id, may_retry=may_retry)
        )


# A streaming assignment that met a transient error on its last attempt (the database down
# for longer than the retry budget) is sent again this much later: no row records it, so the
# periodic sweep would not find it.
ASSIGN_AGAIN_SECONDS = 60


@shared_task(bind=True, name=ASSIGN_TASK, acks_late=True)
def dedup_assign_document(self: Task, document_id: int) -> None:
    """Stream a processed document into its collection's latest runs (quiet when it is gone)."""
    try:
        transient.attempt(self, lambda _: _assign(document_id))
    except Retry:
        raise
    except Exception as error:
        if not transient.is_transient(error):
            raise
        logger.warning("assigning document %s again in %d s", document_id, ASSIGN_AGAIN_SECONDS)
        # Straight to the broker: the outbox is in the database that is down.
        queue.send(ASSIGN_TASK, (document_id,), {"countdown": ASSIGN_AGAIN_SECONDS})


def _assign(document_id: int) -> None:
    document = Document.objects.filter(id=document_id).first()
    if document is not None:
        services.dedup_document_assign(document=document)
