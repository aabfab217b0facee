"""Bulk imports started from the web page or the API of an archive.

The uploaded files (ZIP batches, or documents) are stored in the media storage with an
`ArchiveImport` row, and a Celery task on the bulk queue imports them with the engine the
`import_archive` command uses (`documents.bulk.engine`), in the worker's own process (a
Celery worker's processes cannot start others). After every chunk the row records what was
read, imported, failed, found already there and skipped; the page follows it. The files are
deleted once their documents are stored; a failed import keeps them, so it can be run again,
and running again skips what was stored already (same content).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Sequence
from dataclasses import replace

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone

from core import lease, queue, transient
from documents import selectors, services
from documents.bulk import engine as archive_import
from documents.bulk.engine import ImportFile, ImportReport, SkippedFile
from documents.models import ArchiveImport, Collection
from documents.task_names import IMPORT_TASK

logger = logging.getLogger(__name__)

PROBLEMS_KEPT = 50  # failed and skipped files listed on the row; the rest are counted
UPLOADS_FOLDER = "imports"
BUSY_RETRY_SECONDS = 30  # an import waiting for another one into its archive looks again after


def import_upload(*, collection: Collection, files: Sequence[tuple[str, bytes]]) -> ArchiveImport:
    """Store `files` (name, content) and queue their import into the archive `collection`.
    Raises services.ImportRefused for an assignment, no files, or a file that cannot be
    imported at all (empty, too large, not a document nor a ZIP batch)."""
    if collection.kind != Collection.Kind.ARCHIVE:
        raise services.ImportRefused(
            f"{collection.name!r} is an assignment: its documents are uploaded to be checked "
            "one by one. Bulk imports are for archives."
        )
    if not files:
        raise services.ImportRefused("Choose at least one file to import.")
    try:
        names = [services.file_name(name) for name, _ in files]
        for name, (_, data) in zip(names, files, strict=True):
            services.file_accepted(name, data, batch=services.is_batch(name))
    except services.UploadError as error:
        raise services.ImportRefused(str(error)) from error
    stored: list[str] = []
    try:
        with transaction.atomic():
            services.collection_open(collection)
            job = ArchiveImport.objects.create(
                collection=collection,
                names=", ".join(names)[:500],
                size=sum(len(data) for _, data in files),
            )
            for _, data in files:
                where = f"{UPLOADS_FOLDER}/{job.id}/{len(stored) + 1}.upload"
                stored.append(default_storage.save(where, ContentFile(data)))
            job.uploads = [[where, name] for where, name in zip(stored, names, strict=True)]
            job.save(update_fields=["uploads"])
            transaction.on_commit(lambda: _enqueue(job.id))
    except BaseException:
        _delete(stored)
        raise
    return job


def _enqueue(import_id: int, *, countdown: float = 0) -> None:
    queue.enqueue(IMPORT_TASK, import_id, queue=settings.DOCUMENTS_BULK_QUEUE, countdown=countdown)


def import_retry(*, job: ArchiveImport) -> None:
    """Queue a failed import again (its files were kept); what it stored is skipped."""
    if job.status != ArchiveImport.Status.FAILED:
        raise services.ImportRefused("Only a failed import can be run again.")
    with transaction.atomic():
        ArchiveImport.objects.filter(id=job.id).update(
            status=ArchiveImport.Status.QUEUED, error="", finished_at=None
        )
        transaction.on_commit(lambda: _enqueue(job.id))


def imports_resume() -> int:
    """Queue the imports that never finished again (the worker stopped, or the broker lost the
    message); a copy of a running import's message comes back until that one has finished,
    and then finds it finished."""
    ids = selectors.unfinished_job_ids(ArchiveImport.objects.all())
    for import_id in ids:
        _enqueue(import_id)
    return len(ids)


def imports_stale_requeue() -> int:
    """Queue again the unfinished imports that nobody works on any more (`core.lease`);
    returns how many."""
    unfinished = ArchiveImport.objects.filter(
        status__in=[ArchiveImport.Status.QUEUED, ArchiveImport.Status.RUNNING],
        collection__deleting=False,
    )
    return lease.requeue_stale(unfinished, IMPORT_TASK, queue_name=settings.DOCUMENTS_BULK_QUEUE)


def import_run(*, import_id: int, may_retry: bool = False) -> None:
    """The task's body: import the files of an unfinished import, recording its progress.
    With `may_retry` a transient database error (`core.transient`) leaves the import
    queued and raises `TryAgain` for the caller to run it again (what it stored is skipped
    then) instead of failing it."""
    job = ArchiveImport.objects.select_related("collection").filter(id=import_id).first()
    if job is None or job.finished:
        return
    # Not waited for: a worker process waiting would take no other task meanwhile (with two,
    # uploads would wait for the import too). Another import into the archive (or a copy of
    # this one's message) holds the lock: this message comes back later.
    with archive_import.import_lock(job.collection_id, wait=False) as held:
        if not held:
            _enqueue(job.id, countdown=BUSY_RETRY_SECONDS)
            return
        job.refresh_from_db()
        if job.finished:  # a copy of this message finished it since the row was read
            return
        ArchiveImport.objects.filter(id=job.id).update(
            status=ArchiveImport.Status.RUNNING, started_at=timezone.now()
        )
        before = job.imported  # stored by an earlier attempt of this import (a retry)
        try:
            report = archive_import.archive_import(
                job.collection,
                _items(job),
                processes=1,
                progress=lambda r: _record(job, _carried(r, before)),
            )
        except services.UploadError as error:  # the archive is being deleted, say
            _finish(job, ArchiveImport.Status.FAILED, error=str(error))
            return
        except Exception as error:
            if may_retry and transient.is_transient(error):
                rows = ArchiveImport.objects.filter(id=job.id)
                transient.mark_waiting(rows, status=ArchiveImport.Status.QUEUED)
                raise transient.TryAgain from error
            logger.exception("import %s failed", job.id)
            _finish(job, ArchiveImport.Status.FAILED, error=f"The import stopped ({error}).")
            return
    _record(job, _carried(report, before))
    if report.imported:
        archive_import.index_refresh_after_import(report.document_ids)
    _finish(job, ArchiveImport.Status.DONE)
    _delete([where for where, _ in job.uploads])
    _folder_remove(job.id)


def _items(job: ArchiveImport) -> Iterator[ImportFile | SkippedFile]:
    for where, name in job.uploads:
        try:
            with default_storage.open(where, "rb") as file:
                data = file.read()
        except OSError as error:
            yield SkippedFile(name, f"the uploaded file is gone ({error.strerror or error})")
            continue
        yield from archive_import.file_items(name, name, "", data)


def _carried(report: ImportReport, before: int) -> ImportReport:
    """The report of an attempt after one that stored `before` documents: this attempt reads
    those files again and finds their content already there, so they count as imported, not
    as duplicates. (Their heavy features are left to the lookups to record.)"""
    if not before:
        return report
    return replace(
        report,
        imported=report.imported + before,
        duplicates=max(0, report.duplicates - before),
    )


def _record(job: ArchiveImport, report: ImportReport) -> None:
    problems = [*report.failed[:PROBLEMS_KEPT], *report.skipped[:PROBLEMS_KEPT]]
    ArchiveImport.objects.filter(id=job.id).update(
        files=report.files,
        imported=report.imported,
        failed=len(report.failed),
        duplicates=report.duplicates,
        skipped=len(report.skipped),
        problems=[list(p) for p in problems[:PROBLEMS_KEPT]],
    )


def _finish(job: ArchiveImport, status: str, *, error: str = "") -> None:
    ArchiveImport.objects.filter(id=job.id).update(
        status=status, error=error[:2000], finished_at=timezone.now()
    )


def _folder_remove(import_id: int) -> None:
    """The import's folder, now empty (a local storage's; others have no folders)."""
    try:
        os.rmdir(default_storage.path(f"{UPLOADS_FOLDER}/{import_id}"))
    except (NotImplementedError, OSError):
        pass


def _delete(names: Sequence[str]) -> None:
    for name in names:
        try:
            default_storage.delete(name)
        except OSError:
            logger.warning("could not delete the uploaded file %s", name, exc_info=True)
