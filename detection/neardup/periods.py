"""Period feature strings with common containment similarity.

Feature of a full stop: the ``length`` characters before it; when the previous stop is closer,
the text between the two stops; nothing when they are adjacent.  Features occurring on too many
pages are noise (site templates) and are dropped, which is the seed's template stripping done in
feature space.  Documents share features through an inverted index with shared-feature counts.

CCS (the seed's formula is lost).  With ``a``, ``b`` the feature sets::

    CCS(a, b) = |a ∩ b| / min(|a|, |b|)          how much of the smaller page is in the larger
    size ratio r = min(|a|, |b|) / max(|a|, |b|)

Related when CCS ≥ ``min_ccs``; then ``duplicate`` when r ≥ ``min_ratio`` (both carry the same
content) and ``containment`` otherwise (the smaller page is inside the larger).  Dividing by the
smaller set is what lets a partial reprint or an article with another appended still score
near 1, which Jaccard would not; the size ratio then tells the two relations apart.
Thresholds from the measured distributions (``neardup-eval --measures``, docs/neardup.md):
on zh-reprints-dev every ``different`` pair, same-site ones included, has CCS 0 and 98 % of the
related pairs have CCS ≥ 0.5; on the English set different pairs reach at most 0.14 and related
ones 0.35 at least — ``min_ccs = 0.3`` sits in that gap.  Duplicates have r ≥ 0.8 in 98 % of
pairs (zh: 1.0), while 90 % of containment pairs have r ≤ 0.69 (zh) / 0.86 (en): the
``min_ratio = 0.85`` cut is the compromise, and the pairs it gets wrong are counted in the
table (dup/cont accuracy).  ``min_shared = 2``: one shared feature alone is chance.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from detection.neardup.base import DIFFERENT, Relation, size_relation
from detection.neardup.features import InvertedIndex, noise_features
from detection.neardup.hashing import hash64
from detection.neardup.text import fold

__all__ = ["PeriodConfig", "PeriodFeatures", "PeriodSig", "period_features", "ccs"]


STOPS = r"。|\.(?=\s|$)"


@dataclass(frozen=True, slots=True)
class PeriodConfig:
    length: int = 10
    # "。" is the seed's stop; a Latin full stop before whitespace plays its role in English.
    stops: str = STOPS
    min_df: int = 5
    df_ratio: float = 0.01
    min_ccs: float = 0.3
    min_ratio: float = 0.85
    min_shared: int = 2
    strip_templates: bool = True  # the IDF noise filter
    seed: int = 0
    version: str = "periods1"


@dataclass(frozen=True, slots=True)
class PeriodSig:
    features: frozenset[int]


def period_features(text: str, length: int, stops: str = STOPS) -> list[str]:
    """The period feature strings of folded ``text``, in order (line breaks removed first)."""
    flat = text.replace("\n", "")
    result = []
    previous = 0
    for match in re.finditer(stops, flat):
        start = max(previous, match.start() - length)
        piece = flat[start : match.start()].strip()
        if piece:
            result.append(piece)
        previous = match.end()
    return result


def ccs(a: frozenset[int], b: frozenset[int]) -> float:
    """Common containment similarity |a ∩ b| / min(|a|, |b|); 0 when either set is empty."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


class _PeriodIndex:
    def __init__(self, min_shared: int) -> None:
        self._inner = InvertedIndex(min_shared)

    def add(self, doc_id: int, sig: PeriodSig) -> None:
        self._inner.add_features(doc_id, sig.features)

    def candidates(self, sig: PeriodSig) -> set[int]:
        return self._inner.candidates_for(sig.features)


@dataclass(slots=True)
class PeriodFeatures:
    """Period feature strings behind the ``NearDupMethod`` interface."""

    config: PeriodConfig = field(default_factory=PeriodConfig)
    name: str = "periods"
    _noise: frozenset[int] = frozenset()

    def _raw(self, text: str) -> frozenset[int]:
        pieces = period_features(fold(text), self.config.length, self.config.stops)
        return frozenset(hash64(p, self.config.seed) for p in pieces)

    def fit(self, texts: Iterable[str]) -> None:
        cfg = self.config
        if not cfg.strip_templates:
            return
        sets = [self._raw(t) for t in texts]
        self._noise = noise_features(sets, min_df=cfg.min_df, df_ratio=cfg.df_ratio)

    def signature(self, text: str) -> PeriodSig:
        return PeriodSig(self._raw(text) - self._noise)

    def measures(self, a: PeriodSig, b: PeriodSig) -> dict[str, float]:
        small, large = sorted((len(a.features), len(b.features)))
        return {"ccs": ccs(a.features, b.features), "ratio": small / large if large else 0.0}

    def relation(self, a: PeriodSig, b: PeriodSig) -> Relation:
        score = ccs(a.features, b.features)
        if score < self.config.min_ccs or len(a.features & b.features) < self.config.min_shared:
            return DIFFERENT
        small, large = sorted((len(a.features), len(b.features)))
        kind = size_relation(small, large, self.config.min_ratio)
        return Relation(kind, score)

    def new_index(self) -> _PeriodIndex:
        return _PeriodIndex(self.config.min_shared)
