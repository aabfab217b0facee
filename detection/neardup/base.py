"""The one interface every near-duplicate method implements.

A method turns a text into a *signature* (``signature``), decides the relation of two
signatures (``relation``), and offers a candidate index (``new_index``) so a collection is never
compared pair by pair.  Methods that need collection statistics (template lines, IDF of
features) learn them in ``fit`` before the signatures are made; ``fit`` on an empty iterable
leaves a method usable with no statistics (every method then still works, only without its
template filter).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar

__all__ = [
    "RelationKind",
    "Relation",
    "DIFFERENT",
    "size_relation",
    "CandidateIndex",
    "NearDupMethod",
    "NearDupError",
]

RelationKind = Literal["duplicate", "containment", "different"]
Sig = TypeVar("Sig")
Sig_contra = TypeVar("Sig_contra", contravariant=True)


class NearDupError(ValueError):
    """A near-duplicate method was called wrongly (the message says how to fix the call)."""


@dataclass(frozen=True, slots=True)
class Relation:
    """How two documents relate: ``kind`` plus the method's similarity ``score`` in [0, 1].

    ``containment`` means one document's content is (mostly) inside the other, which is longer;
    ``duplicate`` means both carry the same content.
    """

    kind: RelationKind
    score: float

    @property
    def is_near_duplicate(self) -> bool:
        return self.kind != "different"


DIFFERENT = Relation("different", 0.0)


def size_relation(small: int, large: int, min_ratio: float) -> RelationKind:
    """``duplicate`` when the smaller document is at least ``min_ratio`` of the larger, else
    ``containment`` (the caller has already found the smaller one inside the larger)."""
    return "duplicate" if large and small / large >= min_ratio else "containment"


class CandidateIndex(Protocol[Sig_contra]):
    """Signatures stored so that likely near-duplicates of a query are found without a scan."""

    def add(self, doc_id: int, sig: Sig_contra) -> None: ...

    def candidates(self, sig: Sig_contra) -> set[int]: ...


class NearDupMethod(Protocol[Sig]):
    """A document-level near-duplicate method (see docs/neardup.md for the seven methods)."""

    @property
    def name(self) -> str: ...

    @property
    def config(self) -> Any: ...  # the method's frozen config dataclass; ``config.version``

    def fit(self, texts: Iterable[str]) -> None: ...

    def signature(self, text: str) -> Sig: ...

    def relation(self, a: Sig, b: Sig) -> Relation: ...

    def new_index(self) -> CandidateIndex[Sig]: ...
