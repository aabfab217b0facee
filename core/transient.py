"""Database errors worth another attempt: the work was fine, the moment was not.

PostgreSQL breaks a deadlock by cancelling one of the transactions (an import's chunk and a
collection deletion's batch taking site rows crosswise, say: migration 0022), a serializable
transaction can be refused, and the server can be restarted under a running task or be down
when the task connects. None of these says anything about the document, so a Celery task
that meets one runs again a little later (`retry_later`) instead of storing a failure the
user would have to clear by hand: every task of this app is safe to run twice. Anything else
(unreadable data, a bug, a full disk) fails at once, with its message stored where the task
has a row to store it on, as before; so does an error met on all `ATTEMPTS` tries.

Not transient: a connection lost in the middle of a statement without the server saying why
("server closed the connection unexpectedly"). That is what a backend killed by the
out-of-memory killer or crashing looks like, and the statement that did it would do it again;
the other sessions of a crashed server get 57P02 and are retried.

The next attempt is a new message. When the broker is down too, Celery cannot send it: the
task ends and, acknowledged late, its message comes back from the broker's unacknowledged
set after the visibility timeout or at a restart, and start-up (`manage.py reanalyze
--unfinished`) queues unfinished documents, imports, collection deletions and near-duplicate
runs again.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Iterator

import psycopg
from celery import Task
from celery.exceptions import Retry
from django.db import Error as DatabaseFailure
from django.db import InterfaceError, OperationalError, connections
from django.db.models import QuerySet

logger = logging.getLogger(__name__)

# The first run and five more, 5 s to 80 s apart (2.5 minutes in all); the environment can
# shorten the budget (the fault-injection suite outlasts it in seconds, not minutes).
ATTEMPTS = int(os.environ.get("TRANSIENT_ATTEMPTS", 6))
FIRST_DELAY_SECONDS = float(os.environ.get("TRANSIENT_FIRST_DELAY_SECONDS", 5.0))

# SQLSTATE class 40 (transaction rollback: serialization failure, deadlock detected), and the
# server shut down, restarting after a crash, or starting (57P01-57P03).
_STATE_CLASSES = ("40",)
_STATES = frozenset({"57P01", "57P02", "57P03"})
_CONNECTING_FAILED = "connection failed"  # how psycopg words a failed connect (no SQLSTATE)
_UNAVAILABLE = (
    OperationalError, InterfaceError, psycopg.OperationalError, psycopg.InterfaceError
)  # fmt: skip


class TryAgain(Exception):  # noqa: N818 - a request to the caller, not an error of its own
    """Raised by a service asked to leave transient errors to its caller (`__cause__`: the
    database error)."""


def is_transient(error: BaseException) -> bool:
    """Whether `error`, or an error it was raised from (`raise ... from`: Django wraps
    psycopg's, `TryAgain` its cause), is one that another attempt may not meet."""
    for current in _chain(error):
        if isinstance(current, psycopg.OperationalError):
            state = current.sqlstate
            if state is not None and (state[:2] in _STATE_CLASSES or state in _STATES):
                return True
            if state is None and str(current).startswith(_CONNECTING_FAILED):
                return True  # the server is down or not accepting connections yet
    return False


def is_unavailable(error: BaseException) -> bool:
    """Whether `error` says the database cannot serve a request now, so that the request is
    answered "try again later" (503) rather than as a bug: any DB-API `OperationalError` or
    `InterfaceError` (psycopg's, or Django's wrapping of them), which includes every
    transient error: the connection refused, lost mid-statement or already closed, the
    server shutting down or restarting, a deadlock. Unlike a task's (`is_transient`), a
    request's attempt is not repeated by itself, so a connection lost without a SQLSTATE
    counts too: its user decides whether to send it again."""
    return any(isinstance(current, _UNAVAILABLE) for current in _chain(error))


def _chain(error: BaseException) -> Iterator[BaseException]:
    """`error` and the errors it was raised from (`raise ... from`), each once."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__


def attempt(task: Task, work: Callable[[bool], object]) -> None:
    """Run `work(may_retry)` as one attempt of `task`: a transient error, whether the work
    raised it or asked for another attempt (`TryAgain`), queues the task again, unless this
    is its last attempt (`may_retry` is False then: the work stores the error as a failure)."""
    last = last_attempt(task)
    try:
        work(not last)
    except Exception as error:  # TryAgain included: its cause is transient
        if last or not is_transient(error):
            raise
        raise retry_later(task, error) from error


def retry_later(task: Task, error: BaseException) -> Retry:
    """Queue `task` again (same arguments, same queue) after a delay doubling with each
    attempt, by raising Celery's `Retry` (typed as returned so callers can write `raise
    retry_later(...)`). Connections the error left unusable are closed first, so the next
    attempt opens a new one."""
    cause = error.__cause__ if isinstance(error, TryAgain) and error.__cause__ else error
    retry = task.request.retries + 1  # this one; the attempt it starts is retry + 1
    logger.warning(
        "%s%s met %r; attempt %d of %d in %.0f s",
        task.name, tuple(task.request.args or ()), cause, retry + 1, ATTEMPTS, delay(retry),
    )  # fmt: skip
    for connection in connections.all(initialized_only=True):
        if connection.connection is not None and not connection.is_usable():
            connection.close()
    return task.retry(exc=cause, countdown=delay(retry), max_retries=ATTEMPTS - 1)


def delay(retry: int) -> float:
    """Seconds before retry number `retry` (1, 2, ...): 5, 10, 20, 40, 80."""
    return FIRST_DELAY_SECONDS * 2 ** (retry - 1)


def last_attempt(task: Task) -> bool:
    """Whether this run of `task` is its last: a transient error is then stored as a failure.
    A task function called directly (not through Celery) has no next attempt either."""
    return task.request.called_directly or task.request.retries >= ATTEMPTS - 1


def mark_waiting(rows: QuerySet, **fields: object) -> None:
    """`rows.update(**fields)` if the database can still be written: how the work shows while
    it waits for another attempt. When it cannot be written, the rows stay as they were and
    start-up (`manage.py reanalyze --unfinished`) finds the work unfinished."""
    with contextlib.suppress(DatabaseFailure):  # Django's InterfaceError is no DatabaseError
        rows.update(**fields)
