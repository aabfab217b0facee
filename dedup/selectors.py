"""Reads: runs, their clusters and document pairs (who may read them: `documents.policy`)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import QuerySet
from django.http import Http404

from dedup.models import ClusterMember, DedupRun
from documents.models import Collection, Document, document_path


@dataclass(frozen=True)
class MemberView:
    document: int
    title: str
    relation: str  # centre | duplicate | containment | different (linked via another member)
    score: float


@dataclass(frozen=True)
class ClusterView:
    number: int
    centre: int
    members: tuple[MemberView, ...]  # the centre first, then by score


def run_get(*, run_id: int) -> DedupRun | None:
    """The run, or None; who may read it is its collection's affair (`documents.policy`)."""
    return DedupRun.objects.filter(id=run_id, collection__deleting=False).first()


def run_list(*, collection: Collection) -> QuerySet[DedupRun]:
    return DedupRun.objects.filter(collection=collection).defer("fitted_method")


def run_shown(*, collection: Collection, run_id: int | None = None) -> DedupRun | None:
    """The run whose clusters a page shows: the one asked for, else the latest finished one."""
    runs = run_list(collection=collection)
    if run_id is not None:
        return runs.filter(id=run_id).first()
    return runs.filter(status=DedupRun.Status.DONE).first()


def latest_finished_runs(*, collection_id: int) -> list[DedupRun]:
    """The latest finished run of each method of a collection (where new documents stream)."""
    runs = DedupRun.objects.filter(collection_id=collection_id, status=DedupRun.Status.DONE)
    latest: dict[str, DedupRun] = {}
    for run in runs.order_by("-created", "-id"):
        latest.setdefault(run.method, run)
    return list(latest.values())


def cluster_list(*, run: DedupRun) -> list[ClusterView]:
    """Every cluster of the run (singletons too), largest first, then by number."""
    grouped: dict[int, list[MemberView]] = defaultdict(list)
    centres: dict[int, int] = {}
    rows = ClusterMember.objects.filter(run=run).values_list(
        "cluster", "document_id", "document__folder", "document__filename", "relation", "score"
    )
    for cluster, document, folder, filename, relation, score in rows:
        grouped[cluster].append(
            MemberView(document, document_path(folder, filename), relation, score)
        )
        if relation == ClusterMember.Relation.CENTRE:
            centres[cluster] = document
    views = [
        ClusterView(
            number=number,
            centre=centres.get(number, members[0].document),
            members=tuple(sorted(members, key=_member_order)),
        )
        for number, members in grouped.items()
    ]
    return sorted(views, key=lambda c: (-len(c.members), c.number))


def _member_order(member: MemberView) -> tuple[bool, float, int]:
    return (member.relation != ClusterMember.Relation.CENTRE, -member.score, member.document)


def pair_get(*, collection: Collection, first: int, second: int) -> tuple[Document, Document]:
    """Two documents of the collection, or 404."""
    documents = Document.objects.filter(
        collection=collection, id__in=[first, second]
    ).select_related("collection")
    found = {document.id: document for document in documents}
    if first not in found or second not in found:
        raise Http404("No such pair of documents in this collection.")
    return found[first], found[second]
