"""Grouping related documents: the period method's graph clustering and SimHash's streaming ids.

Period feature strings step 4: (A) documents are nodes of an undirected graph with an edge for every
duplicate or containment relation; a connected component is a duplicate class.  (B) For a node
A, A and every node within 2 edges of A form a candidate class; (C) the largest candidate class
is kept.  Read as a partition: repeatedly take the node whose 2-hop neighbourhood (among the
nodes not yet assigned) is largest, make that neighbourhood one class, and remove it.  This cuts
the long chains a connected component can form (A contains B, B is appended to an unrelated C…),
while a star of reprints around one original stays whole.

SimHash, streaming: a new document takes the cluster id of a stored near-duplicate (here the
one with the best score), otherwise its own id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from detection.neardup.base import CandidateIndex, NearDupMethod, Relation

__all__ = ["components", "two_hop_classes", "StreamingClusterer"]

Sig = TypeVar("Sig")


def _adjacency(nodes: Iterable[int], edges: Iterable[tuple[int, int]]) -> dict[int, set[int]]:
    adj: dict[int, set[int]] = {n: set() for n in nodes}
    for a, b in edges:
        if a != b:
            adj.setdefault(a, set()).add(b)
            adj.setdefault(b, set()).add(a)
    return adj


def components(nodes: Iterable[int], edges: Iterable[tuple[int, int]]) -> list[list[int]]:
    """Connected components (period method step A), each sorted, in order of their smallest node."""
    adj = _adjacency(nodes, edges)
    seen: set[int] = set()
    result: list[list[int]] = []
    for start in sorted(adj):
        if start in seen:
            continue
        stack, comp = [start], []
        seen.add(start)
        while stack:
            node = stack.pop()
            comp.append(node)
            for nxt in adj[node] - seen:
                seen.add(nxt)
                stack.append(nxt)
        result.append(sorted(comp))
    return result


def _two_hop(adj: Mapping[int, set[int]], node: int, alive: set[int]) -> set[int]:
    first = adj[node] & alive
    reach = {node} | first
    for nxt in first:
        reach |= adj[nxt] & alive
    return reach


def two_hop_classes(
    nodes: Iterable[int], edges: Iterable[tuple[int, int]]
) -> list[tuple[int, list[int]]]:
    """The period method's steps B–C as a partition: ``(centre, sorted members)`` per class.

    Ties between equally large neighbourhoods go to the node with more direct neighbours, then to
    the smallest id, so the result does not depend on input order.
    """
    edge_list = list(edges)
    adj = _adjacency(nodes, edge_list)
    classes: list[tuple[int, list[int]]] = []
    for comp in components(adj, edge_list):
        alive = set(comp)
        while alive:
            centre = min(
                alive,
                key=lambda n: (-len(_two_hop(adj, n, alive)), -len(adj[n] & alive), n),
            )
            members = _two_hop(adj, centre, alive)
            classes.append((centre, sorted(members)))
            alive -= members
    return classes


@dataclass
class StreamingClusterer(Generic[Sig]):
    """SimHash's incremental ids over any method: ``assign`` returns the new doc's cluster id."""

    method: NearDupMethod[Sig]

    def __post_init__(self) -> None:
        self._index: CandidateIndex[Sig] = self.method.new_index()
        self._sigs: dict[int, Sig] = {}
        self._cluster: dict[int, int] = {}

    def best_match(self, sig: Sig) -> tuple[int, Relation] | None:
        """The stored document most related to ``sig`` (by score, then smallest id), if any."""
        best: tuple[int, Relation] | None = None
        for doc in sorted(self._index.candidates(sig)):
            rel = self.method.relation(sig, self._sigs[doc])
            if rel.is_near_duplicate and (best is None or rel.score > best[1].score):
                best = (doc, rel)
        return best

    def assign(self, doc_id: int, sig: Sig) -> int:
        match = self.best_match(sig)
        cluster = self._cluster[match[0]] if match else doc_id
        self._index.add(doc_id, sig)
        self._sigs[doc_id] = sig
        self._cluster[doc_id] = cluster
        return cluster

    @property
    def clusters(self) -> Mapping[int, int]:
        return self._cluster
