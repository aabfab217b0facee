"""The collusion graph of a collection: its documents linked by the passages they share.

Built from the copied pairs (`selectors.collection_pairs`: the share of each side), not from
near-duplicate clustering: two essays sharing four copied paragraphs are linked even when the
rest of their text differs. Only pairs of two documents of the collection are edges; what a
document shares with an archive is on its report.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from documents import selectors
from documents.models import Collection, Document, document_path

# Who was first: the submission time when documents have one, else the upload time.
SUBMITTED = (
    "submitted_at"
    if any(field.name == "submitted_at" for field in Document._meta.get_fields())
    else "created_at"
)
# Times closer than this cannot tell who was first (the documents of one ZIP upload); used
# where the pairs do not say who copied whom themselves (`PairView.direction`).
SAME_TIME = timedelta(minutes=1)


@dataclass(frozen=True)
class GraphNode:
    id: int
    title: str
    similarity: float | None
    submitted_at: datetime


@dataclass(frozen=True)
class GraphEdge:
    """A pair. When the times tell who was first, `source` copied from `target` (the
    original, submitted earlier) and `directed` is True; else `source` is the side with the
    larger share. Each share is the part of that document's text found in the other."""

    source: int
    target: int
    source_share: float | None
    target_share: float | None
    passages: int
    directed: bool

    @property
    def id(self) -> str:
        return f"{self.source}-{self.target}"

    @property
    def report_document(self) -> int:
        """Whose report shows the pair side by side (`?source=report_source`): the copier's,
        when its match with the other is stored."""
        return self.source if self.source_share is not None else self.target

    @property
    def report_source(self) -> int:
        return self.target if self.source_share is not None else self.source

    @property
    def share(self) -> float:
        """The larger share: what the edge's width and the threshold go by."""
        return max(self.source_share or 0.0, self.target_share or 0.0)


@dataclass(frozen=True)
class Graph:
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    documents: int  # the collection's checked documents, linked or not


def collection_graph(*, collection: Collection) -> Graph:
    """The collection's documents that share passages with another of its documents, and
    those pairs, strongest first."""
    rows = (
        selectors.checked_documents(collection_id=collection.id)
        .filter(status=Document.Status.DONE)
        .values("id", "folder", "filename", "similarity", SUBMITTED)
    )
    members = {row["id"]: row for row in rows}
    edges = [
        _edge(pair, members[pair.document][SUBMITTED], members[pair.other][SUBMITTED])
        # Only pairs of two of its documents are drawn: the collection is all they need to see.
        for pair in selectors.collection_pairs(
            collection=collection, visible=Collection.objects.filter(id=collection.id)
        )
        if pair.document in members and pair.other in members
    ]
    linked = {end for edge in edges for end in (edge.source, edge.target)}
    nodes = tuple(
        GraphNode(
            id=row["id"],
            title=document_path(row["folder"], row["filename"]),
            similarity=row["similarity"],
            submitted_at=row[SUBMITTED],
        )
        for row in sorted(members.values(), key=lambda r: (r[SUBMITTED], r["id"]))
        if row["id"] in linked
    )
    return Graph(nodes=nodes, edges=tuple(edges), documents=len(members))


def _edge(pair: selectors.PairView, document_time: datetime, other_time: datetime) -> GraphEdge:
    direction = getattr(pair, "direction", None) or _direction(document_time, other_time)
    if direction == "same_time":
        return GraphEdge(
            source=pair.document, target=pair.other, source_share=pair.share,
            target_share=pair.other_share, passages=pair.passages, directed=False,
        )  # fmt: skip
    if direction == "a_from_b":  # the document came later: it copied from the other
        return GraphEdge(
            source=pair.document, target=pair.other, source_share=pair.share,
            target_share=pair.other_share, passages=pair.passages, directed=True,
        )  # fmt: skip
    return GraphEdge(
        source=pair.other, target=pair.document, source_share=pair.other_share,
        target_share=pair.share, passages=pair.passages, directed=True,
    )  # fmt: skip


def _direction(document_time: datetime, other_time: datetime) -> str:
    """Who copied whom, for pairs that do not say (`PairView.direction`, the same words):
    "a_from_b" when the document came later, "b_from_a", or "same_time"."""
    if abs(document_time - other_time) < SAME_TIME:
        return "same_time"
    return "a_from_b" if document_time > other_time else "b_from_a"
