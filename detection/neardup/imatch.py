"""Baseline: I-Match (Chowdhury et al. 2002), one hash of the document's mid-IDF terms.

I-Match keeps the terms whose IDF lies in a middle band (no function words, no rare noise),
sorts the unique ones and hashes the list: two documents are duplicates exactly when the hashes
are equal, so the index is a hash table and the method is as fast as it is brittle (one edited
in-band word changes the hash).  IDF comes from wordfreq's general-language frequencies (a
collection-independent lexicon, so signatures are stable as the collection grows): a term is
kept when its Zipf frequency is in [``min_zipf``, ``max_zipf``) — a known word, but not one of
the few hundred most common words of its language.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache

import jieba
from wordfreq import zipf_frequency

from detection.neardup.base import DIFFERENT, Relation
from detection.neardup.hashing import hash64
from detection.neardup.templates import TemplateConfig, TemplateFilter, TemplateStripping
from detection.neardup.text import fold, is_han, words

__all__ = ["IMatchConfig", "IMatch", "zipf"]

# wordfreq segments Chinese with jieba, which logs its dictionary loading at DEBUG level.
jieba.setLogLevel(logging.WARNING)


@dataclass(frozen=True, slots=True)
class IMatchConfig:
    min_zipf: float = 2.0
    max_zipf: float = 5.5
    seed: int = 3
    strip_templates: bool = True
    templates: TemplateConfig = TemplateConfig()
    version: str = "imatch1"


@lru_cache(maxsize=200_000)
def zipf(word: str) -> float:
    """wordfreq Zipf frequency of ``word`` (Chinese for Han words, else English)."""
    return zipf_frequency(word, "zh" if is_han(word) else "en")


class _HashIndex:
    def __init__(self) -> None:
        self._table: defaultdict[int, set[int]] = defaultdict(set)

    def add(self, doc_id: int, sig: int | None) -> None:
        if sig is not None:
            self._table[sig].add(doc_id)

    def candidates(self, sig: int | None) -> set[int]:
        return set() if sig is None else set(self._table.get(sig, ()))


@dataclass(slots=True)
class IMatch(TemplateStripping):
    """I-Match behind the ``NearDupMethod`` interface; the signature is one signed 64-bit hash."""

    config: IMatchConfig = field(default_factory=IMatchConfig)
    name: str = "imatch"
    _templates: TemplateFilter = field(init=False)

    def signature(self, text: str) -> int | None:
        """Hash of the sorted in-band terms, or None when there are none (matches nothing)."""
        cfg = self.config
        terms = {
            w
            for w in words(fold(self._templates.remove(text)))
            if cfg.min_zipf <= zipf(w) < cfg.max_zipf
        }
        return hash64("\x1f".join(sorted(terms)), cfg.seed) if terms else None

    def relation(self, a: int | None, b: int | None) -> Relation:
        return Relation("duplicate", 1.0) if a is not None and a == b else DIFFERENT

    def new_index(self) -> _HashIndex:
        return _HashIndex()
