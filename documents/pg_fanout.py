"""Scatter-gather: one lookup's hash partitions probed on several connections at once.

A 10,000-character lookup is ~1,000 btree descents, each to its own leaf page, and
PostgreSQL runs one statement on one core: the time goes to memory (cache misses on the
leaves, buffer-mapping lookups), not to the wire. The posting table is hash-partitioned by
feature, so the partitions can be probed independently: `documents.pg_lookup` splits a lookup
into statements over disjoint partition groups, and `Lanes` runs the first in the calling
thread and each other one in a thread of its own, on that thread's own connection (Django's
connections are per thread). Each connection still makes ONE round trip; the groups run at
once, on separate backends. The same split is how the partitions would be spread over
servers.

When it is used (`lookup_groups`): `settings.POSTING_LOOKUP_CONNECTIONS` above 1 (default:
up to 2, the cores of the machine), at least `FANOUT_MIN_FEATURES` features (below that the
fixed cost of a second statement and of waking a thread, ~0.15 ms, eats the gain), and no
transaction open on the caller's connection: another connection would not see its
uncommitted postings (one transaction indexing and checking, as in tests, sees its own work).

Measured on the benchmark's 22.7M-posting archive (2 cores): worst-case lookup p50 from
3.6-6.1 ms to 2.4-4.0 ms. The groups' snapshots are taken separately, so a document indexed
or removed while the lookup runs may be seen in one group and not the other; the pipeline
already treats documents indexed during a check as unseen by it (`services._indexed_unseen`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from typing import TypeVar

from django.conf import settings
from django.db import connections

FANOUT_MIN_FEATURES = 256
T = TypeVar("T")


def lookup_connections() -> int:
    """The configured number of connections one lookup may use (at least 1)."""
    return max(1, int(getattr(settings, "POSTING_LOOKUP_CONNECTIONS", 1)))


def lookup_groups(features: int, using: str, connections_wanted: int | None = None) -> int:
    """How many partition groups (and connections) a lookup of `features` features on
    database `using` is split into."""
    wanted = lookup_connections() if connections_wanted is None else max(1, connections_wanted)
    if wanted == 1 or features < FANOUT_MIN_FEATURES or connections[using].in_atomic_block:
        return 1
    return wanted


class Lanes:
    """Threads that each run calls on their own database connections, one call at a time."""

    def __init__(self, lanes: int) -> None:
        self._executors = [
            ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"lookup-lane-{lane + 1}")
            for lane in range(lanes)
        ]

    def __len__(self) -> int:
        return len(self._executors)

    def run(self, using: str, calls: Sequence[Callable[[], T]]) -> list[T]:
        """The results of `calls`, in order: the first run in this thread, each other in a
        lane (on the lane's connection to `using`). All have finished when this returns; the
        first error raised is raised again."""
        if len(calls) - 1 > len(self._executors):
            raise ValueError(f"{len(calls)} calls for {len(self._executors)} lanes and this thread")
        futures = [
            executor.submit(_on_lane_connection, using, call)
            for executor, call in zip(self._executors, calls[1:], strict=False)
        ]
        try:
            first = calls[0]()
        finally:
            wait(futures)  # never leave a lane's statement running behind the caller
        return [first, *(future.result() for future in futures)]

    def close(self) -> None:
        """Close every lane's connections and stop its thread."""
        for executor in self._executors:
            executor.submit(connections.close_all).result()
            executor.shutdown(wait=True)


def _on_lane_connection(using: str, call: Callable[[], T]) -> T:
    """`call` on this lane's connection, which is reopened first when an error left it
    unusable or it outlived CONN_MAX_AGE (what Django does for a request's connection)."""
    connections[using].close_if_unusable_or_obsolete()
    return call()


_LOCK = threading.Lock()
_LANES: Lanes | None = None
_LANES_PID = 0


def lanes(count: int) -> Lanes:
    """This process's lanes, at least `count` of them (created on first use, and again in a
    forked child: the parent's threads do not exist there)."""
    global _LANES, _LANES_PID
    with _LOCK:
        if _LANES is None or _LANES_PID != os.getpid() or len(_LANES) < count:
            previous = _LANES if _LANES_PID == os.getpid() else None
            _LANES, _LANES_PID = Lanes(count), os.getpid()
            if previous is not None:
                previous.close()
        return _LANES


def close_lanes() -> None:
    """Close this process's lanes and their connections (they are opened again on use): a
    test database cannot be dropped while a lane holds a connection to it."""
    global _LANES
    with _LOCK:
        if _LANES is not None and _LANES_PID == os.getpid():
            _LANES.close()
        _LANES = None


def run_spread(using: str, calls: Sequence[Callable[[], T]]) -> list[T]:
    """The results of `calls` (one per partition group), run at once when there are several."""
    if len(calls) == 1:
        return [calls[0]()]
    return lanes(len(calls) - 1).run(using, calls)
