"""SimHash document signatures with a banded index (Charikar 2002, Manku et al. 2007).

Pipeline: content extraction and template removal (``templates.py``) → words →
word 2-grams weighted by term frequency → 64-bit SimHash (each 2-gram's blake2b hash votes
+tf / −tf on every bit; a bit is 1 when its vote is positive) → 4 × 16-bit banded index →
a stored signature within Hamming distance ≤ 3 is a near-duplicate.  SimHash measures overall
resemblance, so it reports only ``duplicate`` (never ``containment``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from detection.neardup.bands import BandIndex, hamming
from detection.neardup.base import DIFFERENT, Relation
from detection.neardup.hashing import hash_u64
from detection.neardup.templates import TemplateConfig, TemplateFilter, TemplateStripping
from detection.neardup.text import fold, words

__all__ = ["SimHashConfig", "SimHash", "simhash"]


@dataclass(frozen=True, slots=True)
class SimHashConfig:
    ngram: int = 2
    max_distance: int = 3
    bands: int = 4
    seed: int = 1
    strip_templates: bool = True
    templates: TemplateConfig = TemplateConfig()
    version: str = "simhash1"


def simhash(weights: Counter[str], seed: int = 1) -> int:
    """64-bit SimHash of weighted features (``weights``: feature → weight)."""
    if not weights:
        return 0
    hashes = np.array([hash_u64(f, seed) for f in weights], dtype=np.uint64)
    tf = np.array(list(weights.values()), dtype=np.int64)
    bits = (hashes[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)
    votes = (np.where(bits == 1, 1, -1) * tf[:, None]).sum(axis=0)
    return sum(1 << bit for bit in np.flatnonzero(votes > 0).tolist())


def ngrams(tokens: list[str], n: int) -> Counter[str]:
    """Term frequencies of word n-grams (a text shorter than n gives its whole word string)."""
    if len(tokens) < n:
        return Counter([" ".join(tokens)]) if tokens else Counter()
    return Counter(" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


@dataclass(slots=True)
class SimHash(TemplateStripping):
    """SimHash behind the ``NearDupMethod`` interface; signatures are unsigned 64-bit ints."""

    config: SimHashConfig = field(default_factory=SimHashConfig)
    name: str = "simhash"
    _templates: TemplateFilter = field(init=False)

    def signature(self, text: str) -> int | None:
        """The SimHash, or None for a text without words (it matches nothing)."""
        content = fold(self._templates.remove(text))
        grams = ngrams(words(content), self.config.ngram)
        return simhash(grams, self.config.seed) if grams else None

    def measures(self, a: int | None, b: int | None) -> dict[str, float]:
        return {"hamming": 64 if a is None or b is None else hamming(a, b)}

    def relation(self, a: int | None, b: int | None) -> Relation:
        if a is None or b is None:
            return DIFFERENT
        distance = hamming(a, b)
        if distance > self.config.max_distance:
            return DIFFERENT
        return Relation("duplicate", 1.0 - distance / 64)

    def new_index(self) -> _SimHashIndex:
        return _SimHashIndex(BandIndex(bands=self.config.bands))


class _SimHashIndex:
    """The band index, skipping empty documents."""

    def __init__(self, bands: BandIndex) -> None:
        self._bands = bands

    def add(self, doc_id: int, sig: int | None) -> None:
        if sig is not None:
            self._bands.add(doc_id, sig)

    def candidates(self, sig: int | None) -> set[int]:
        return set() if sig is None else self._bands.candidates(sig)
