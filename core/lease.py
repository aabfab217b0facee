"""Leases: how the periodic sweep tells work that is alive from work that was lost.

A row with work to do (a document to process, an import, a run, a collection to delete) has a
`lease_until` column. The task doing the work holds the lease (`held`): it sets it when it
starts and a heartbeat thread moves it forward while the task runs, so a worker that dies
(killed, out of memory, the machine restarted) stops renewing it and it runs out within
`LEASE_SECONDS`. The sweep queues unfinished work again only when its lease ran out and no
message for it waits in the broker or in the outbox (`stale_ids`), so a live task is never
run twice by the sweep, and lost work is found within minutes.

Work that has never been leased (queued and waiting for a worker) gets a lease of
`GRACE_SECONDS` when the sweep first sees it, so a message that is on its way (committed,
not yet in the broker) is not sent a second time.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connections, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from core import broker, queue

logger = logging.getLogger(__name__)


def lease_seconds() -> float:
    """How long a lease lasts after the last heartbeat (a third of it between heartbeats)."""
    return float(getattr(settings, "LEASE_SECONDS", 90))


def grace_seconds() -> float:
    """How long unfinished work first seen by the sweep may wait before it is queued again."""
    return float(getattr(settings, "LEASE_GRACE_SECONDS", 120))


def renew(rows: QuerySet, seconds: float | None = None) -> None:
    """Extend the lease of `rows` to `seconds` (default: `lease_seconds()`) from now."""
    until = timezone.now() + timedelta(seconds=lease_seconds() if seconds is None else seconds)
    rows.update(lease_until=until)


@contextlib.contextmanager
def held(rows: QuerySet) -> Iterator[None]:
    """Hold the lease of `rows` while the block runs: renewed now and every third of
    `lease_seconds()` by a thread. After the block the lease runs out on its own (a retry
    queued with a delay shorter than the lease finds it still held, as it should)."""
    with contextlib.suppress(DatabaseError):  # the task meets the outage itself and retries
        renew(rows)
    stop = threading.Event()
    beat = threading.Thread(target=_heartbeat, args=(rows, stop), daemon=True, name="lease")
    beat.start()
    try:
        yield
    finally:
        stop.set()
        beat.join()


def _heartbeat(rows: QuerySet, stop: threading.Event) -> None:
    """Renew the lease until `stop` is set; on its own database connection, closed at the end
    (Django's connections are per thread)."""
    try:
        while not stop.wait(lease_seconds() / 3):
            try:
                renew(rows)
            except DatabaseError:
                logger.warning("could not renew the lease of %s", rows.model.__name__)
                connections.close_all()
    finally:
        connections.close_all()


def stale_ids(rows: QuerySet, task_name: str, *, limit: int = 1000) -> list[int]:
    """The ids of `rows` (unfinished work) whose lease ran out and for which no message of
    `task_name` waits in the broker's queues or in the outbox: what the sweep queues again.
    Rows never leased get a lease of `grace_seconds()` now (seen first)."""
    now = timezone.now()
    rows.filter(lease_until__isnull=True).update(
        lease_until=now + timedelta(seconds=grace_seconds())
    )
    ids = list(rows.filter(lease_until__lt=now).order_by("id").values_list("id", flat=True)[:limit])
    if not ids:
        return []
    waiting = broker.waiting_ids(task_name) or set()
    waiting |= {_int(arg) for arg in queue.outbox_first_args(task_name)}
    return [i for i in ids if i not in waiting]


def requeue_stale(
    rows: QuerySet, task_name: str, *, queue_name: str | None = None, **fields: Any
) -> int:
    """Queue `task_name` again for the `rows` (unfinished work) found stale (`stale_ids`),
    updating them with `fields` (e.g. back to queued) and a lease of `grace_seconds()`;
    returns how many. Rows are taken locked and only while still unleased, so two sweeps at
    once queue each at most once."""
    ids = stale_ids(rows, task_name)
    if not ids:
        return 0
    now = timezone.now()
    expired = Q(lease_until__isnull=True) | Q(lease_until__lt=now)
    with transaction.atomic():
        taken = list(
            rows.filter(expired, id__in=ids)
            .select_for_update(skip_locked=True, of=("self",))
            .order_by("id")
            .values_list("id", flat=True)
        )
        rows.model.objects.filter(id__in=taken).update(
            lease_until=now + timedelta(seconds=grace_seconds()), **fields
        )
        queue.enqueue_many(task_name, [(i,) for i in taken], queue=queue_name)
    if taken:
        logger.info("queued %s again for %s %s", task_name, rows.model.__name__, taken)
    return len(taken)


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1
