"""Writes: deduplication runs of a collection, and streaming assignment of new documents.

A run follows the period method (fit → signatures → index → graph → 2-hop classes) through
`detection.neardup.cluster_documents`; a document processed after the run joins a cluster by
SimHash's streaming rule (the cluster of its best-scoring stored near-duplicate, else a new
cluster), using the run's fitted method and stored signatures instead of recomputing the
collection.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from core import lease, queue, transient
from core.errors import AppError
from dedup import selectors
from dedup.models import ClusterMember, DedupRun, Signature
from dedup.run_index import RunIndex, run_index
from dedup.task_names import ASSIGN_TASK, RUN_TASK
from detection.neardup import (
    METHODS,
    Cluster,
    NearDupMethod,
    Relation,
    cluster_documents,
    signature_version,
)
from detection.neardup.base import CandidateIndex
from detection.neardup.encoding import method_encode, signature_encode
from documents import selectors as document_selectors
from documents.models import Collection, Document

logger = logging.getLogger(__name__)

ANALYZE_AFTER = 1_000  # a run storing this many signatures refreshes the tables' statistics

# The best method on both evaluation sets of docs/neardup.md (F1 0.998 / 1.000, and it tells
# containment from duplicates).
DEFAULT_METHOD = "periods"


class UnknownMethod(AppError):
    """The requested method is not one of `detection.neardup.METHODS`."""

    field = "method"


def method_names() -> list[str]:
    return list(METHODS)


def method_check(method: str) -> str:
    if method not in METHODS:
        raise UnknownMethod(
            f"Unknown method {method!r}; choose one of: {', '.join(method_names())}.",
            methods=method_names(),
        )
    return method


# --- runs -----------------------------------------------------------------------------------


def dedup_run_start(*, collection: Collection, method: str) -> DedupRun:
    """Create a run of `method` over the collection's processed documents and queue it."""
    method_check(method)
    with transaction.atomic():
        run = DedupRun.objects.create(collection=collection, method=method)
        dedup_run_enqueue(run=run)
    return run


def dedup_run_enqueue(*, run: DedupRun) -> None:
    """Queue the run after the surrounding transaction commits (the worker must see the row)."""
    run_id = run.id
    queue.enqueue_on_commit(RUN_TASK, run_id)


def dedup_runs_resume() -> int:
    """Queue again the runs left queued or running (their task was lost: the worker stopped,
    or a retry after a transient error could not be sent); returns how many. Meant for
    start-up, before the workers run (`manage.py reanalyze --unfinished`): running a run
    twice only replaces its results."""
    ids = document_selectors.unfinished_job_ids(DedupRun.objects.all())
    for run_id in ids:
        queue.enqueue(RUN_TASK, run_id)
    return len(ids)


def dedup_runs_stale_requeue() -> int:
    """Queue again the unfinished runs that nobody works on any more (`core.lease`): safe
    while workers run, unlike `dedup_runs_resume`; returns how many."""
    unfinished = DedupRun.objects.filter(
        status__in=[DedupRun.Status.QUEUED, DedupRun.Status.RUNNING], collection__deleting=False
    )
    return lease.requeue_stale(unfinished, RUN_TASK)


def dedup_run_execute(*, run_id: int, may_retry: bool = False) -> None:
    """Cluster the collection; replaces the run's members and signatures (safe to run twice).

    A failure is stored on the row (status failed) and logged; with `may_retry` a transient
    database error (`core.transient`) leaves the run queued and raises `TryAgain` for
    the caller to run it again."""
    run = DedupRun.objects.filter(id=run_id).first()
    if run is None:
        logger.info("dedup run %s is gone; nothing to do", run_id)
        return
    try:
        _execute(run)
    except Exception as error:  # noqa: BLE001 - stored for the user, logged for us
        if may_retry and transient.is_transient(error):
            rows = DedupRun.objects.filter(id=run_id)
            transient.mark_waiting(rows, status=DedupRun.Status.QUEUED)
            raise transient.TryAgain from error
        logger.exception("dedup run %s failed", run_id)
        _progress(run_id, run.progress, status=DedupRun.Status.FAILED, error=f"{error}"[:2000])


def _execute(run: DedupRun) -> None:
    _progress(run.id, 1, status=DedupRun.Status.RUNNING, error="", finished=None)
    texts = dict(
        Document.objects.filter(collection_id=run.collection_id, status=Document.Status.DONE)
        .order_by("id")
        .values_list("id", "text")
    )
    method = METHODS[method_check(run.method)]()
    recorder = _RecordingMethod(method, _progress_reporter(run.id, len(texts)))
    clusters = cluster_documents(recorder, texts)
    _results_replace(
        run, method, {doc: recorder.made[text] for doc, text in texts.items()}, clusters
    )


def _progress_reporter(run_id: int, total: int) -> Callable[[int], None]:
    """Signing is the bulk of a run: map signed documents to 5–90 %, one write per step."""
    last = [-1]

    def report(signed: int) -> None:
        value = 5 + (85 * signed) // max(total, 1)
        if value != last[0]:
            last[0] = value
            _progress(run_id, value)

    return report


@dataclass
class _RecordingMethod:
    """A method that keeps every signature it makes (keyed by text), so the run stores the
    signatures `cluster_documents` computed instead of signing the collection twice."""

    inner: NearDupMethod[Any]
    report: Callable[[int], None]
    made: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def config(self) -> Any:
        return self.inner.config

    def fit(self, texts: Iterable[str]) -> None:
        self.inner.fit(texts)

    def signature(self, text: str) -> Any:
        if text not in self.made:
            self.made[text] = self.inner.signature(text)
            self.report(len(self.made))
        return self.made[text]

    def relation(self, a: Any, b: Any) -> Relation:
        return self.inner.relation(a, b)

    def new_index(self) -> Any:
        return self.inner.new_index()


def _results_replace(
    run: DedupRun, method: NearDupMethod[Any], sigs: Mapping[int, Any], clusters: list[Cluster]
) -> None:
    version = signature_version(method)
    with transaction.atomic():
        # Documents deleted meanwhile are left out rather than failing the run.
        alive = set(Document.objects.filter(id__in=list(sigs)).values_list("id", flat=True))
        _lock_run(run.id)
        ClusterMember.objects.filter(run=run).delete()
        Signature.objects.filter(run=run).delete()
        Signature.objects.bulk_create(
            Signature(
                run=run,
                document_id=doc,
                method=run.method,
                signature_version=version,
                data=signature_encode(run.method, sig),
            )
            for doc, sig in sigs.items()
            if doc in alive
        )
        ClusterMember.objects.bulk_create(_member_rows(run, clusters, alive))
        _progress(
            run.id,
            100,
            status=DedupRun.Status.DONE,
            signature_version=version,
            fitted_method=method_encode(method),
            finished=timezone.now(),
        )
    if len(sigs) >= ANALYZE_AFTER:
        _statistics_refresh(run.id)


def _statistics_refresh(run_id: int) -> None:
    """ANALYZE the tables a run has just written in bulk: until autovacuum's next pass the
    planner's statistics may not know the rows, and the lookups of every document streamed
    into the run scan it, several times slower than an indexed read. The run is
    done already: a failure here is logged, never the run's."""
    try:
        with transaction.atomic(), connection.cursor() as cursor:  # a savepoint when nested
            cursor.execute("ANALYZE dedup_signature, dedup_clustermember")
    except DatabaseError:
        logger.warning("dedup run %s: ANALYZE after the run failed", run_id, exc_info=True)


def _member_rows(run: DedupRun, clusters: list[Cluster], alive: set[int]) -> list[ClusterMember]:
    rows = []
    for number, cluster in enumerate(clusters, start=1):
        for member in cluster.members:
            if member.doc_id not in alive:
                continue
            centre = member.doc_id == cluster.centre
            rows.append(
                ClusterMember(
                    run=run,
                    cluster=number,
                    document_id=member.doc_id,
                    relation=ClusterMember.Relation.CENTRE if centre else member.relation,
                    score=member.score,
                )
            )
    return rows


def _lock_run(run_id: int) -> DedupRun | None:
    """Hold the run row until commit; returns it as locked (None when it is gone)."""
    return DedupRun.objects.select_for_update().filter(id=run_id).first()


def _progress(run_id: int, progress: int, **fields: object) -> None:
    DedupRun.objects.filter(id=run_id).update(progress=progress, **fields)


# --- streaming ------------------------------------------------------------------------------


def dedup_assign_enqueue(*, document_id: int) -> None:
    """Queue streaming assignment of a processed document once the transaction commits
    (the line the documents pipeline calls after a document is done)."""
    queue.enqueue_on_commit(ASSIGN_TASK, document_id)


def dedup_document_assign(*, document: Document) -> list[ClusterMember]:
    """Put a processed document into the latest finished run of each method of its collection.

    Returns the document's membership in each run (existing memberships are kept as they are:
    re-run the deduplication to re-cluster changed documents).
    """
    if document.status != Document.Status.DONE:
        return []
    placed = []
    for run in selectors.latest_finished_runs(collection_id=document.collection_id):
        member = _assign_in_run(run, document)
        if member is not None:
            placed.append(member)
    return placed


def _assign_in_run(run: DedupRun, document: Document) -> ClusterMember | None:
    existing = _member(run, document.id)
    if existing is not None:
        return existing
    held = run_index(run)  # outside the lock: the method to sign with
    if held is None:
        logger.warning("dedup run %s: not fitted by this version; re-run it to stream", run.id)
        return None
    sig = held.method.signature(document.text)
    with transaction.atomic():
        # The run row is the lock: concurrent assignments take cluster numbers one at a time,
        # and a re-run (status no longer done) is not written into.
        locked = _lock_run(run.id)
        if locked is None or locked.status != DedupRun.Status.DONE:
            return None
        if not Document.objects.filter(id=document.id).exists():
            return None
        placed = _member(locked, document.id)  # by another assignment of this document
        if placed is not None:
            return placed
        current = run_index(locked)  # with every signature stored before the lock was ours
        if current is None:
            return None
        if current.key != held.key:  # re-run since the signing: its method signs again
            sig = current.method.signature(document.text)
        return _member_join(locked, current, document, sig)


def _member_join(run: DedupRun, held: RunIndex, document: Document, sig: Any) -> ClusterMember:
    cluster, relation, score = _place(run, held, sig)
    Signature.objects.create(
        run=run,
        document=document,
        method=run.method,
        signature_version=run.signature_version,
        data=signature_encode(run.method, sig),
    )
    return ClusterMember.objects.create(
        run=run, cluster=cluster, document=document, relation=relation, score=score
    )


def _place(run: DedupRun, held: RunIndex, sig: Any) -> tuple[int, str, float]:
    """(cluster, relation, score) of a new signature: the best match's cluster, else a new one."""
    method, stored = held.method, held.stored
    while True:
        match = best_match(method, stored, sig, held.index)
        if match is None:
            return _next_cluster(run), ClusterMember.Relation.CENTRE, 1.0
        joined = _member(run, match[0])
        if joined is not None:
            break
        held.drop(match[0])  # deleted with its document since the process read it
    centre = (
        ClusterMember.objects.filter(
            run=run, cluster=joined.cluster, relation=ClusterMember.Relation.CENTRE
        )
        .order_by("id")  # not the model's ordering: it joins the run for the run's own
        .values_list("document_id", flat=True)
        .first()
    )
    # Like `cluster_documents`: a member's relation is to the centre ("different" when it is
    # linked to the cluster only through another member).  A deleted centre leaves the relation
    # to the matched member.
    if centre is None or centre == match[0] or centre not in stored:
        return joined.cluster, match[1].kind, match[1].score
    to_centre = method.relation(stored[centre], sig)
    return joined.cluster, to_centre.kind, to_centre.score


def best_match(
    method: NearDupMethod[Any], stored: Mapping[int, Any], sig: Any, index: CandidateIndex[Any]
) -> tuple[int, Relation] | None:
    """The streaming rule of `StreamingClusterer.best_match`: among the candidates the method's
    `index` over `stored` proposes, the stored near-duplicate with the best score (then the
    smallest id)."""
    best: tuple[int, Relation] | None = None
    for doc in sorted(index.candidates(sig)):
        if doc not in stored:  # dropped: its document was deleted
            continue
        rel = method.relation(stored[doc], sig)
        if rel.is_near_duplicate and (best is None or rel.score > best[1].score):
            best = (doc, rel)
    return best


def _member(run: DedupRun, document_id: int) -> ClusterMember | None:
    """The document's membership of the run (one row at most: the pair is unique)."""
    return ClusterMember.objects.filter(run=run, document_id=document_id).order_by().first()


def _next_cluster(run: DedupRun) -> int:
    last = ClusterMember.objects.filter(run=run).order_by("-cluster").first()
    return (last.cluster if last else 0) + 1
