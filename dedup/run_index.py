"""The candidate index of a finished run, kept by each worker process between assignments.

Streaming a document into a run needs the run's fitted method and a candidate index over the
signatures stored in it. Built anew for every document, that would cost time growing with
the run (every signature decoded and indexed, under the run's lock; `manage.py
dedup_stream_bench` measures it). So a process keeps the last runs it streamed into (as
many as hold `CACHED_MEMBERS` members in all) and reads only the signatures stored since (ids
above the last it read): assignments into one run store theirs holding the run's lock, one at
a time, so no lower id commits after a higher one. A run that was re-run (a new `finished`
time or signature version) is read again from scratch. A member deleted with its document
stays in the index until a lookup proposes it: the caller finds its membership gone and
`drop`s it.
"""

from __future__ import annotations

import gc
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from dedup.models import DedupRun, Signature
from detection.neardup import NearDupMethod, signature_version
from detection.neardup.base import CandidateIndex
from detection.neardup.encoding import method_decode, signature_decode

# Runs kept per process, least recently used dropped first: any number while their members
# number at most CACHED_MEMBERS in all (a collection streams into the latest run of each of
# its methods, up to seven), and always the one just used.
CACHED_MEMBERS = 200_000
FREEZE_AFTER = 1_000  # a run read afresh with this many members is moved out of the GC's way


@dataclass
class RunIndex:
    """A run's fitted method, its stored signatures by document, and their candidate index."""

    key: tuple[int, datetime | None, str]
    method: NearDupMethod[Any]
    index: CandidateIndex[Any]
    stored: dict[int, Any] = field(default_factory=dict)
    last_id: int = 0  # the highest Signature id read

    def drop(self, document_id: int) -> None:
        """Leave a deleted member out: the index may still propose it, `stored` decides."""
        self.stored.pop(document_id, None)

    def read(self, rows: list[tuple[int, int, bytes | memoryview]]) -> None:
        for row_id, document_id, data in rows:
            sig = signature_decode(self.method.name, data)
            self.stored[document_id] = sig
            self.index.add(document_id, sig)
            self.last_id = max(self.last_id, row_id)


_RUNS: OrderedDict[int, RunIndex] = OrderedDict()


def run_index(run: DedupRun) -> RunIndex | None:
    """The run's index with the signatures stored so far: holding the run's lock, every one
    (outside it, an assignment may be storing one). None when the run has no fitted method
    or was fitted by another version of its method."""
    key = (run.id, run.finished, run.signature_version)
    held = _RUNS.pop(run.id, None)
    fresh = held is None or held.key != key
    if held is None or fresh:
        held = _fresh(run, key)
        if held is None:
            return None
    rows = Signature.objects.filter(
        run=run, signature_version=run.signature_version, id__gt=held.last_id
    )
    held.read(list(rows.values_list("id", "document_id", "data")))
    if fresh and len(held.stored) >= FREEZE_AFTER:
        # Long-lived objects by the thousand: the worker froze its start-up objects so that
        # full collections do not pause lookups (config/celery.py); these join them. Dropped
        # later, they are freed by reference counting as usual.
        gc.freeze()
    _RUNS[run.id] = held
    while len(_RUNS) > 1 and sum(len(r.stored) for r in _RUNS.values()) > CACHED_MEMBERS:
        _RUNS.popitem(last=False)
    return held


def held(run_id: int) -> RunIndex | None:
    """What this process holds for the run, as it last read it (no database access)."""
    return _RUNS.get(run_id)


def forget() -> None:
    """Drop every run this process holds (tests)."""
    _RUNS.clear()


def _fresh(run: DedupRun, key: tuple[int, datetime | None, str]) -> RunIndex | None:
    method = fitted_method(run)
    return None if method is None else RunIndex(key=key, method=method, index=method.new_index())


def fitted_method(run: DedupRun) -> NearDupMethod[Any] | None:
    """The run's method as it was fitted, or None (no fitted method stored, or one made by
    another version of the method: streaming skips the run until it is re-run)."""
    if not run.fitted_method:
        return None
    method: NearDupMethod[Any] = method_decode(run.fitted_method)
    if signature_version(method) != run.signature_version:
        return None
    return method
