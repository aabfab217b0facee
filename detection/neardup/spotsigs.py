"""Baseline: SpotSigs (Theobald, Siddharth & Paepcke, SIGIR 2008).

A spot signature is an *antecedent* (a frequent stopword) followed by a chain of the next
``chain`` non-antecedent words: "the:minister:said".  Stopwords are dense in running prose and
rare in navigation bars and link lists, so signatures come from the article, not the template.
Similarity is the Jaccard coefficient of the signature sets, ``duplicate`` when ≥ ``tau``.
Length-based pruning (the paper's partitioning): J(A, B) ≤ min(|A|, |B|) / max(|A|, |B|),
so a candidate whose set size is outside [tau·|A|, |A|/tau] is never compared.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from detection.neardup.base import DIFFERENT, Relation
from detection.neardup.features import InvertedIndex
from detection.neardup.hashing import hash64
from detection.neardup.text import fold, words

__all__ = ["SpotSigsConfig", "SpotSigs", "spot_signatures", "ANTECEDENTS"]

# English: the paper's frequent antecedents; Chinese: the most frequent function words.
ANTECEDENTS = frozenset(
    "the a an is was are were be been has have had said there this that".split()
    + "的 了 在 是 和 与 对 将 为 被 把 也 都 就 从".split()
)


@dataclass(frozen=True, slots=True)
class SpotSigsConfig:
    chain: int = 2
    tau: float = 0.44
    seed: int = 4
    version: str = "spotsigs1"


def spot_signatures(tokens: list[str], chain: int) -> set[str]:
    """Antecedent + the next ``chain`` non-antecedent words, for every antecedent occurrence."""
    sigs = set()
    for i, word in enumerate(tokens):
        if word not in ANTECEDENTS:
            continue
        tail = [t for t in tokens[i + 1 : i + 1 + 4 * chain] if t not in ANTECEDENTS][:chain]
        if len(tail) == chain:
            sigs.add(":".join([word, *tail]))
    return sigs


@dataclass(frozen=True, slots=True)
class SpotSig:
    features: frozenset[int]


class _PrunedIndex:
    def __init__(self, tau: float) -> None:
        self._inner = InvertedIndex(1)
        self._sizes: dict[int, int] = {}
        self._tau = tau

    def add(self, doc_id: int, sig: SpotSig) -> None:
        self._inner.add_features(doc_id, sig.features)
        self._sizes[doc_id] = len(sig.features)

    def candidates(self, sig: SpotSig) -> set[int]:
        n = len(sig.features)
        low, high = self._tau * n, n / self._tau if self._tau else float("inf")
        found = self._inner.candidates_for(sig.features)
        return {d for d in found if low <= self._sizes[d] <= high}


@dataclass(slots=True)
class SpotSigs:
    """SpotSigs behind the ``NearDupMethod`` interface (no template step: the paper's point)."""

    config: SpotSigsConfig = field(default_factory=SpotSigsConfig)
    name: str = "spotsigs"

    def fit(self, texts: Iterable[str]) -> None:
        """SpotSigs needs no collection statistics."""

    def signature(self, text: str) -> SpotSig:
        sigs = spot_signatures(words(fold(text)), self.config.chain)
        return SpotSig(frozenset(hash64(s, self.config.seed) for s in sigs))

    def measures(self, a: SpotSig, b: SpotSig) -> dict[str, float]:
        union = len(a.features | b.features)
        return {"jaccard": len(a.features & b.features) / union if union else 0.0}

    def relation(self, a: SpotSig, b: SpotSig) -> Relation:
        jaccard = self.measures(a, b)["jaccard"]
        return Relation("duplicate", jaccard) if jaccard >= self.config.tau else DIFFERENT

    def new_index(self) -> _PrunedIndex:
        return _PrunedIndex(self.config.tau)
