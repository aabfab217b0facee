"""Deduplicating a whole collection with any method (fit → signatures → index → classes)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from detection.neardup.base import NearDupMethod, Relation, RelationKind
from detection.neardup.clustering import two_hop_classes

__all__ = ["Member", "Cluster", "signatures", "related_pairs", "cluster_documents"]

Sig = TypeVar("Sig")


@dataclass(frozen=True, slots=True)
class Member:
    """A document of a cluster and its relation to the cluster's centre (itself: duplicate 1)."""

    doc_id: int
    relation: RelationKind
    score: float


@dataclass(frozen=True, slots=True)
class Cluster:
    centre: int
    members: tuple[Member, ...]


def signatures(method: NearDupMethod[Sig], texts: Mapping[int, str]) -> dict[int, Sig]:
    """Fit ``method`` on the collection, then sign every text."""
    method.fit(texts.values())
    return {doc: method.signature(text) for doc, text in texts.items()}


def related_pairs(
    method: NearDupMethod[Sig], sigs: Mapping[int, Sig]
) -> dict[tuple[int, int], Relation]:
    """Every near-duplicate pair ``(a, b)`` with ``a < b``, found through the method's index.

    Documents are added in id order and each is looked up before it is added, so every pair is
    considered once and only pairs the index proposes are compared.
    """
    index = method.new_index()
    found: dict[tuple[int, int], Relation] = {}
    for doc in sorted(sigs):
        for other in index.candidates(sigs[doc]):
            rel = method.relation(sigs[other], sigs[doc])
            if rel.is_near_duplicate:
                found[(other, doc)] = rel
        index.add(doc, sigs[doc])
    return found


def cluster_documents(method: NearDupMethod[Any], texts: Mapping[int, str]) -> list[Cluster]:
    """Near-duplicate classes of ``texts`` (the period method's graph + 2-hop rule) with relations.

    Singletons are returned too, so every document is in exactly one cluster.
    """
    sigs = signatures(method, texts)
    pairs = related_pairs(method, sigs)
    clusters = []
    for centre, members in two_hop_classes(sigs, pairs):
        rows = []
        for doc in members:
            rel = (
                Relation("duplicate", 1.0)
                if doc == centre
                else method.relation(sigs[centre], sigs[doc])
            )
            rows.append(Member(doc, rel.kind, rel.score))
        clusters.append(Cluster(centre, tuple(rows)))
    return clusters
