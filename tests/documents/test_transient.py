"""Transient database errors (core.transient): a deadlock PostgreSQL breaks, the
connection lost. The tasks run again a little later instead of storing a failure; other
errors fail at once, and an error met on every attempt is stored like any other."""

from __future__ import annotations

import logging
import threading
import uuid

import psycopg
import pytest
from django.db import connection
from django.db.utils import InterfaceError, OperationalError

from core import transient
from documents import services
from documents import tasks as document_tasks
from documents.bulk import engine as archive_import
from documents.bulk import jobs as imports
from documents.models import ArchiveImport, Collection, Document
from documents.services import pipeline
from tests.documents.factories import WATER, database_error, intercept_task, upload

pytestmark = pytest.mark.django_db


def deadlock() -> Exception:
    return database_error(psycopg.errors.DeadlockDetected("deadlock detected"))


def real_deadlock() -> psycopg.Error:
    """Two sessions locking two rows crosswise; PostgreSQL cancels one of them."""
    params = connection.get_connection_params()
    table = f"deadlock_{uuid.uuid4().hex[:8]}"
    setup = psycopg.connect(**params, autocommit=True)
    setup.execute(f"CREATE TABLE {table} (id int PRIMARY KEY)")
    setup.execute(f"INSERT INTO {table} VALUES (1), (2)")
    first, second = psycopg.connect(**params), psycopg.connect(**params)
    errors: list[psycopg.Error] = []
    both_hold_one = threading.Barrier(2)

    def lock(session: psycopg.Connection, mine: int, theirs: int) -> None:
        try:
            session.execute(f"SELECT 1 FROM {table} WHERE id = %s FOR UPDATE", [mine])
            both_hold_one.wait()
            session.execute(f"SELECT 1 FROM {table} WHERE id = %s FOR UPDATE", [theirs])
        except psycopg.Error as error:
            errors.append(error)
        finally:
            session.rollback()  # the survivor lets go once it has both rows

    try:
        threads = [
            threading.Thread(target=lock, args=(first, 1, 2)),
            threading.Thread(target=lock, args=(second, 2, 1)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    finally:
        first.close()
        second.close()
        setup.execute(f"DROP TABLE {table}")
        setup.close()
    assert len(errors) == 1, errors
    return errors[0]


def test_a_deadlock_postgresql_breaks_is_transient_as_psycopg_and_django_raise_it():
    error = real_deadlock()
    assert isinstance(error, psycopg.errors.DeadlockDetected)
    assert transient.is_transient(error)
    assert transient.is_transient(database_error(error))


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (psycopg.errors.SerializationFailure("could not serialize access"), True),
        (psycopg.errors.AdminShutdown("terminating connection"), True),
        (psycopg.errors.CrashShutdown("terminating connection: crash of another process"), True),
        (psycopg.errors.CannotConnectNow("the database system is starting up"), True),
        (
            psycopg.OperationalError(
                'connection failed: connection to server at "127.0.0.1", '
                "port 5432 failed: Connection refused"
            ),
            True,
        ),  # fmt: skip
        # Lost mid-statement with no word from the server: what the statement's own crash of
        # the backend looks like; retrying would crash it again.
        (psycopg.OperationalError("server closed the connection unexpectedly"), False),
        (psycopg.OperationalError("the connection is closed"), False),
        (psycopg.InterfaceError("the cursor is closed"), False),
        (psycopg.errors.UniqueViolation("duplicate key value"), False),
        (psycopg.errors.DiskFull("could not extend file"), False),
        (psycopg.errors.QueryCanceled("canceling statement due to statement timeout"), False),
        (psycopg.errors.UndefinedTable('relation "x" does not exist'), False),
    ],
)
def test_which_database_errors_are_transient(error, expected):
    assert transient.is_transient(error) is expected
    assert transient.is_transient(database_error(error)) is expected


def test_only_errors_raised_from_a_transient_one_count_not_those_raised_while_handling_it():
    try:
        raise transient.TryAgain from deadlock()
    except transient.TryAgain as asked:
        assert transient.is_transient(asked)
    try:
        try:
            raise deadlock()
        except OperationalError:
            raise RuntimeError("a bug in the handler") from None  # only __context__ is left
    except RuntimeError as error:
        assert error.__context__ is not None
        assert not transient.is_transient(error)
    assert not transient.is_transient(ValueError("bad data"))
    assert not transient.is_transient(InterfaceError("connection already closed"))


def test_the_delays_double_from_five_seconds():
    assert [transient.delay(n) for n in range(1, transient.ATTEMPTS)] == [5, 10, 20, 40, 80]


class Flaky:
    """`work` that fails with `error` half-way on its first `failures` calls (the document
    shown processing at 45 %), then does the real work; records the document's status as each
    call found it."""

    def __init__(self, work, error, failures: int) -> None:  # type: ignore[no-untyped-def]
        self.work, self.error, self.failures = work, error, failures
        self.calls = 0
        self.statuses: list[str] = []

    def __call__(self, document: Document) -> None:
        self.calls += 1
        self.statuses.append(Document.objects.get(id=document.id).status)
        if self.calls <= self.failures:
            Document.objects.filter(id=document.id).update(status="processing", progress=45)
            raise self.error
        self.work(document)


def test_a_document_meeting_a_deadlock_is_processed_again(owner, monkeypatch, caplog):
    collection = services.collection_create(owner=owner, name="c")
    document = upload(collection, "zh_source.txt")
    flaky = Flaky(pipeline._process, deadlock(), failures=2)
    monkeypatch.setattr(pipeline, "_process", flaky)

    with caplog.at_level(logging.WARNING, logger=transient.__name__):
        document_tasks.document_process_task.apply(args=(document.id,))

    document.refresh_from_db()
    assert (document.status, document.progress, document.error) == ("done", 100, "")
    assert flaky.calls == 3
    assert flaky.statuses == ["queued", "queued", "queued"]  # shown queued while it waited
    waits = [r.getMessage() for r in caplog.records]
    assert len(waits) == 2
    assert "deadlock detected" in waits[0] and "attempt 2 of 6 in 5 s" in waits[0]
    assert "attempt 3 of 6 in 10 s" in waits[1]


def test_a_deadlock_on_every_attempt_is_stored_as_the_failure(owner, monkeypatch):
    collection = services.collection_create(owner=owner, name="c")
    document = upload(collection, "zh_source.txt")
    flaky = Flaky(pipeline._process, deadlock(), failures=100)
    monkeypatch.setattr(pipeline, "_process", flaky)

    document_tasks.document_process_task.apply(args=(document.id,))

    document.refresh_from_db()
    assert flaky.calls == transient.ATTEMPTS
    assert document.status == "failed"
    assert "deadlock detected" in document.error


def test_other_errors_fail_the_document_at_once(owner, monkeypatch):
    collection = services.collection_create(owner=owner, name="c")
    document = upload(collection, "zh_source.txt")
    flaky = Flaky(pipeline._process, ValueError("a bug"), failures=100)
    monkeypatch.setattr(pipeline, "_process", flaky)

    document_tasks.document_process_task.apply(args=(document.id,))

    document.refresh_from_db()
    assert flaky.calls == 1
    assert (document.status, document.error) == ("failed", "Processing failed (ValueError: a bug).")


def test_the_task_function_called_directly_stores_a_transient_error(owner, monkeypatch):
    collection = services.collection_create(owner=owner, name="c")
    document = upload(collection, "zh_source.txt")
    flaky = Flaky(pipeline._process, deadlock(), failures=1)
    monkeypatch.setattr(pipeline, "_process", flaky)

    document_tasks.document_process_task(document.id)  # no Celery request: no next attempt

    document.refresh_from_db()
    assert flaky.calls == 1
    assert document.status == "failed" and "deadlock detected" in document.error


def test_called_outside_a_task_the_pipeline_still_stores_a_transient_error(owner, monkeypatch):
    collection = services.collection_create(owner=owner, name="c")
    document = upload(collection, "zh_source.txt")
    monkeypatch.setattr(pipeline, "_process", Flaky(pipeline._process, deadlock(), failures=1))

    services.document_process(document_id=document.id)  # evaluate_pipeline, bench, tests

    document.refresh_from_db()
    assert document.status == "failed" and "deadlock detected" in document.error


def test_an_import_cut_by_a_server_restart_runs_again_and_finishes(
    archive, monkeypatch, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path / "media"
    intercept_task(monkeypatch, document_tasks.archive_import_task.name, lambda *_, **__: None)
    job = imports.import_upload(collection=archive, files=[("water.txt", WATER.encode())])
    real_import, real_run = archive_import.archive_import, imports.import_run
    calls: list[str] = []
    entered: list[str] = []

    def flaky(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(ArchiveImport.objects.get(id=job.id).status)
        if len(calls) == 1:
            raise database_error(psycopg.errors.AdminShutdown("terminating connection"))
        return real_import(*args, **kwargs)

    def run(**kwargs):  # type: ignore[no-untyped-def]
        entered.append(ArchiveImport.objects.get(id=job.id).status)
        return real_run(**kwargs)

    monkeypatch.setattr(archive_import, "archive_import", flaky)
    monkeypatch.setattr(imports, "import_run", run)

    document_tasks.archive_import_task.apply(args=(job.id,))

    job.refresh_from_db()
    assert entered == ["queued", "queued"]  # shown queued again while it waited
    assert calls == ["running", "running"]
    assert (job.status, job.imported, job.error) == ("done", 1, "")
    assert Document.objects.filter(collection=archive, filename="water.txt").count() == 1


def test_an_import_cut_after_storing_counts_what_it_stored_as_imported_not_as_duplicates(
    archive, monkeypatch, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path / "media"
    intercept_task(monkeypatch, document_tasks.archive_import_task.name, lambda *_, **__: None)
    files = [("water.txt", WATER.encode()), ("other.txt", WATER.encode()[::-1])]
    job = imports.import_upload(collection=archive, files=files)
    real = archive_import.archive_import
    calls: list[int] = []

    def cut_after_storing(*args, **kwargs):  # type: ignore[no-untyped-def]
        report = real(*args, **kwargs)
        calls.append(report.imported)
        if len(calls) == 1:  # everything stored and recorded, then the server went away
            raise database_error(psycopg.errors.AdminShutdown("terminating connection"))
        return report

    monkeypatch.setattr(archive_import, "archive_import", cut_after_storing)

    document_tasks.archive_import_task.apply(args=(job.id,))

    job.refresh_from_db()
    assert calls == [2, 0]  # the second attempt found both already there
    assert (job.status, job.files, job.imported, job.duplicates) == ("done", 2, 2, 0)
    assert job.summary == "2 files read: 2 imported"


def test_a_collection_deletion_meeting_a_deadlock_runs_again(owner, monkeypatch):
    collection = services.collection_create(owner=owner, name="c")
    upload(collection, "zh_source.txt")
    intercept_task(monkeypatch, document_tasks.collection_delete_task.name, lambda *_: None)
    services.collection_delete(collection=collection)
    real = services.collection_purge
    calls: list[int] = []

    def flaky(*, collection_id: int) -> None:
        calls.append(collection_id)
        if len(calls) == 1:
            raise deadlock()
        real(collection_id=collection_id)

    monkeypatch.setattr(services, "collection_purge", flaky)

    document_tasks.collection_delete_task.apply(args=(collection.id,))

    assert calls == [collection.id, collection.id]
    assert not Collection.objects.filter(id=collection.id).exists()


def test_a_retry_is_sent_to_the_queue_it_came_from_after_the_delay(settings, monkeypatch):
    """Not eager: the next attempt is a new message, on the same (bulk) queue, counted."""
    from celery.canvas import Signature
    from celery.exceptions import Retry

    sent: list[dict] = []
    monkeypatch.setattr(Signature, "apply_async", lambda self, *a, **k: sent.append(self.options))
    task = document_tasks.document_process_task
    bulk = settings.DOCUMENTS_BULK_QUEUE
    task.push_request(
        id="t-1", args=(7,), kwargs={}, retries=1, is_eager=False, called_directly=False,
        delivery_info={"exchange": "", "routing_key": bulk},
    )  # fmt: skip
    try:
        with pytest.raises(Retry):
            raise transient.retry_later(task, deadlock())
    finally:
        task.pop_request()
    (options,) = sent
    assert (options["queue"], options["countdown"], options["retries"]) == (bulk, 10.0, 2)


@pytest.mark.parametrize(
    "error",
    [
        psycopg.OperationalError('connection failed: connection to server at "127.0.0.1" failed'),
        psycopg.errors.AdminShutdown("terminating connection due to administrator command"),
        psycopg.errors.DeadlockDetected("deadlock detected"),
        psycopg.OperationalError("server closed the connection unexpectedly"),
        psycopg.InterfaceError("the connection is closed"),
    ],
    ids=["refused", "shut-down", "deadlock", "lost-mid-statement", "closed"],
)
def test_a_request_the_database_could_not_serve_is_unavailable(error):
    assert transient.is_unavailable(error)
    assert transient.is_unavailable(database_error(error))


def test_connection_already_closed_as_django_says_it_is_unavailable():
    assert transient.is_unavailable(InterfaceError("connection already closed"))


@pytest.mark.parametrize(
    "error",
    [
        psycopg.errors.UndefinedColumn('column "nope" does not exist'),
        psycopg.errors.UniqueViolation("duplicate key value"),
        ValueError("bad data"),
    ],
    ids=["bug", "integrity", "not-a-database-error"],
)
def test_errors_of_the_request_itself_are_not_unavailable(error):
    assert not transient.is_unavailable(error)
    if isinstance(error, psycopg.Error):
        assert not transient.is_unavailable(database_error(error))
