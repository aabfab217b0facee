"""Baseline: word shingling with MinHash and LSH (Broder 1997; datasketch).

Shingles are word ``k``-grams of the template-stripped text; a MinHash of ``num_perm``
permutations estimates the Jaccard resemblance J, and MinHashLSH proposes candidates.  Broder
defines containment too; from J and the two shingle-set sizes it follows without another
sketch: |A ∩ B| = J · (|A| + |B|) / (1 + J), so containment = |A ∩ B| / min(|A|, |B|).
Related when that containment ≥ ``min_containment``; ``duplicate`` when J ≥ ``min_jaccard``,
else ``containment``.  Measured (``neardup-eval --measures``): different pairs reach an
estimated containment of 0.14 at most, 98 % of related pairs 0.62 or more; duplicates have
J ≥ 0.64 while the median containment pair has J ≈ 0.5 — so the relation is less sure than the
match (see the dup/cont column in docs/neardup.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from datasketch import MinHash, MinHashLSH

from detection.neardup.base import DIFFERENT, Relation, RelationKind
from detection.neardup.templates import TemplateConfig, TemplateFilter, TemplateStripping
from detection.neardup.text import fold, words

__all__ = ["ShinglingConfig", "Shingling", "ShingleSig", "shingles"]


@dataclass(frozen=True, slots=True)
class ShinglingConfig:
    k: int = 3
    num_perm: int = 128
    seed: int = 1
    lsh_threshold: float = 0.2
    min_containment: float = 0.5
    min_jaccard: float = 0.7
    strip_templates: bool = True
    templates: TemplateConfig = TemplateConfig()
    version: str = "shingling1"


@dataclass(frozen=True, slots=True)
class ShingleSig:
    minhash: MinHash
    size: int


def shingles(tokens: list[str], k: int) -> set[str]:
    """Word k-grams (a text shorter than k gives one shingle of all its words)."""
    if len(tokens) < k:
        return {" ".join(tokens)} if tokens else set()
    return {" ".join(tokens[i : i + k]) for i in range(len(tokens) - k + 1)}


class _LSHIndex:
    def __init__(self, threshold: float, num_perm: int) -> None:
        self._lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)

    def add(self, doc_id: int, sig: ShingleSig) -> None:
        self._lsh.insert(doc_id, sig.minhash, check_duplication=False)

    def candidates(self, sig: ShingleSig) -> set[int]:
        return set(self._lsh.query(sig.minhash))


@dataclass(slots=True)
class Shingling(TemplateStripping):
    """Shingling + MinHash behind the ``NearDupMethod`` interface."""

    config: ShinglingConfig = field(default_factory=ShinglingConfig)
    name: str = "minhash"
    _templates: TemplateFilter = field(init=False)

    def signature(self, text: str) -> ShingleSig:
        cfg = self.config
        grams = shingles(words(fold(self._templates.remove(text))), cfg.k)
        minhash = MinHash(num_perm=cfg.num_perm, seed=cfg.seed)
        minhash.update_batch([g.encode("utf-8") for g in sorted(grams)])
        return ShingleSig(minhash, len(grams))

    def measures(self, a: ShingleSig, b: ShingleSig) -> dict[str, float]:
        if not a.size or not b.size:
            return {"jaccard": 0.0, "containment": 0.0}
        jaccard = a.minhash.jaccard(b.minhash)
        common = jaccard * (a.size + b.size) / (1 + jaccard)
        return {"jaccard": jaccard, "containment": min(1.0, common / min(a.size, b.size))}

    def relation(self, a: ShingleSig, b: ShingleSig) -> Relation:
        m = self.measures(a, b)
        jaccard, containment = m["jaccard"], m["containment"]
        if not containment or containment < self.config.min_containment:
            return DIFFERENT
        kind: RelationKind = "duplicate" if jaccard >= self.config.min_jaccard else "containment"
        return Relation(kind, containment)

    def new_index(self) -> _LSHIndex:
        return _LSHIndex(self.config.lsh_threshold, self.config.num_perm)
