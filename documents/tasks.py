"""Celery entry points: ids in, one service call, harmless to run twice.

A transient database error (`core.transient`: a deadlock, the server restarting) runs the
task again later instead of failing it; on its last attempt it is handled as any other error.
"""

from celery import Task, shared_task

from core import transient
from documents import services
from documents.bulk import jobs as imports
from documents.task_names import DELETE_TASK, IMPORT_TASK, PROCESS_TASK, REFRESH_TASK


@shared_task(bind=True, name=PROCESS_TASK, acks_late=True)
def document_process_task(self: Task, document_id: int) -> None:
    """Process a document; returns quietly when its row has been deleted meanwhile."""
    transient.attempt(
        self,
        lambda may_retry: services.document_process(document_id=document_id, may_retry=may_retry),
    )


@shared_task(bind=True, name=DELETE_TASK, acks_late=True)
def collection_delete_task(self: Task, collection_id: int) -> None:
    """Delete a collection marked for deletion, with its documents (resumable)."""
    transient.attempt(self, lambda _: services.collection_purge(collection_id=collection_id))


@shared_task(bind=True, name=IMPORT_TASK, acks_late=True)
def archive_import_task(self: Task, import_id: int) -> None:
    """Import an archive's uploaded files in bulk (resumable: stored content is skipped)."""
    transient.attempt(
        self, lambda may_retry: imports.import_run(import_id=import_id, may_retry=may_retry)
    )


@shared_task(bind=True, name=REFRESH_TASK, acks_late=True)
def similarities_refresh_task(self: Task, collection_id: int) -> None:
    """Recompute a collection's stored similarities after its exclusions changed."""
    transient.attempt(
        self, lambda _: services.collection_similarity_refresh(collection_id=collection_id)
    )
