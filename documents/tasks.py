"""Celery entry points: ids in, one service call, harmless to run twice.

A transient database error (`core.transient`: a deadlock, the server restarting) runs the
task again later instead of failing it; on its last attempt it is handled as any other error.
Each task holds the lease of its row while it runs (`core.lease`), so the periodic sweep
(`work_sweep_task`) leaves it alone and takes it up again only if the worker died.
"""

import logging

from celery import Task, shared_task

from core import lease, queue, transient
from documents import services, signals
from documents.bulk import jobs as imports
from documents.models import ArchiveImport, Collection, Document
from documents.task_names import DELETE_TASK, IMPORT_TASK, PROCESS_TASK, REFRESH_TASK, SWEEP_TASK

logger = logging.getLogger(__name__)


@shared_task(bind=True, name=PROCESS_TASK, acks_late=True)
def document_process_task(self: Task, document_id: int) -> None:
    """Process a document; returns quietly when its row has been deleted meanwhile."""
    with lease.held(Document.objects.filter(id=document_id)):
        transient.attempt(
            self,
            lambda may_retry: services.document_process(
                document_id=document_id, may_retry=may_retry
            ),
        )


@shared_task(bind=True, name=DELETE_TASK, acks_late=True)
def collection_delete_task(self: Task, collection_id: int) -> None:
    """Delete a collection marked for deletion, with its documents (resumable)."""
    with lease.held(Collection.objects.filter(id=collection_id)):
        transient.attempt(self, lambda _: services.collection_purge(collection_id=collection_id))


@shared_task(bind=True, name=IMPORT_TASK, acks_late=True)
def archive_import_task(self: Task, import_id: int) -> None:
    """Import an archive's uploaded files in bulk (resumable: stored content is skipped)."""
    with lease.held(ArchiveImport.objects.filter(id=import_id)):
        transient.attempt(
            self, lambda may_retry: imports.import_run(import_id=import_id, may_retry=may_retry)
        )


@shared_task(name=SWEEP_TASK, ignore_result=True)
def work_sweep_task() -> None:
    """Send the outbox messages the broker did not take, then queue again the unfinished work
    nobody holds a lease on: documents, collection deletions, imports, and what other apps
    answer to `signals.stale_requeue` (near-duplicate runs). Sent every `SWEEP_SECONDS` by
    each worker (`config.celery`); two at once are harmless (rows are taken locked)."""
    relayed = queue.outbox_relay()
    counts: dict[str, int] = {
        "outbox messages": relayed,
        "documents": services.documents_stale_requeue(),
        "collection deletions": services.collections_delete_stale_requeue(),
        "imports": imports.imports_stale_requeue(),
        "upload keys expired": services.upload_keys_expire(),
        "other": sum(int(n) for _, n in signals.stale_requeue.send(sender=Document) if n),
    }
    if any(counts.values()):
        logger.warning(
            "sweep: sent again %s",
            ", ".join(f"{n} {what}" for what, n in counts.items() if n),
        )


@shared_task(bind=True, name=REFRESH_TASK, acks_late=True)
def similarities_refresh_task(self: Task, collection_id: int) -> None:
    """Recompute a collection's stored similarities after its exclusions changed."""
    transient.attempt(
        self, lambda _: services.collection_similarity_refresh(collection_id=collection_id)
    )
