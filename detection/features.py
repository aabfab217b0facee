"""Low-IDF-Sig sentence features ("Low-IDF-Sig feature extraction").

For a sentence's word sequence (stop words of the small skip list removed first, so chains
step over them):

1. antecedents are the n lowest-IDF words of the shipped IDF table (:mod:`detection.idf`) plus
   the sentence's first word, so every non-empty sentence has at least one feature;
2. for every antecedent at position p the chain is the words at p, p+d, …, p+c·d — the
   antecedent is part of its chain; chains are cut at the sentence end (a chain of at least two
   words, or the first word's chain, is kept).  c is ``han_chain_length`` when the antecedent
   is a Chinese word: a jieba word carries about as much as two English words, and Chinese copy
   editing (synonyms, dropped or swapped words) breaks long chains — measured in
   docs/detection.md;
3. each chain is hashed to a signed 64-bit integer (fits PostgreSQL bigint, identical in every
   process — never Python's ``hash()``): every word gets a keyed blake2b 64-bit hash (cached),
   and a chain is ``Σ word_hash[i] · M[i] mod 2^64`` with odd position multipliers ``M`` also
   derived from the key — position-sensitive, uniformly spread, and one C-level ``sum`` per
   chain instead of a blake2b call (analyze() speed matters for ingest).

Seed example (antecedents {as, to, that, of, from}, c=2, d=1): "as we are taking ..." yields
as:we:are, to:highlight:that, that:intel:as, ... (tests/detection/test_features.py).
"""

from __future__ import annotations

import hashlib
import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from detection.config import DetectorConfig
from detection.idf import load_idf_model
from detection.lexicon import LEXICON_VERSION
from detection.normalize import NORMALIZE_VERSION
from detection.sentences import SENTENCES_VERSION
from detection.words import WORDS_VERSION

__all__ = ["FeatureModel", "feature_model", "sentence_features", "chains", "hash_chain"]

_SEPARATOR = "\x1f"


@dataclass(frozen=True, slots=True)
class FeatureModel:
    """Everything that decides which integers a sentence becomes."""

    antecedents: frozenset[str]
    skip: frozenset[str]
    chain_length: int
    han_chain_length: int
    chain_gap: int
    key: bytes
    multipliers: tuple[int, ...]
    version: str


@cache
def feature_model(config: DetectorConfig) -> FeatureModel:
    """The feature model of ``config`` (cached per config) with its version string."""
    idf = load_idf_model()
    key = hashlib.blake2b(config.hash_seed.encode("utf-8"), digest_size=16).digest()
    longest = max(config.chain_length, config.han_chain_length)
    version = ";".join(
        [
            "lis1",
            f"idf={idf.version}@{idf.digest}",
            f"n={config.antecedents}",
            f"c={config.chain_length}/{config.han_chain_length}",
            f"d={config.chain_gap}",
            f"seed={config.hash_seed}",
            "hash=b2sum1",
            f"text={NORMALIZE_VERSION}/{WORDS_VERSION}/{SENTENCES_VERSION}",
            f"sentences=max{config.max_sentence_chars}/{config.english_splitter}",
            *([f"terms={LEXICON_VERSION}"] if config.retrieval_top is not None else []),
        ]
    )
    return FeatureModel(
        antecedents=idf.antecedents(config.antecedents),
        skip=idf.skip,
        chain_length=config.chain_length,
        han_chain_length=config.han_chain_length,
        chain_gap=config.chain_gap,
        key=key,
        multipliers=tuple(_multiplier(key, i) for i in range(longest + 1)),
        version=version,
    )


def _multiplier(key: bytes, position: int) -> int:
    digest = hashlib.blake2b(f"position {position}".encode(), digest_size=8, key=key).digest()
    return int.from_bytes(digest, "big") | 1


_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_MASK = (1 << 64) - 1
_SIGN = 1 << 63
_WORD_CACHE_LIMIT = 1 << 20
_word_caches: dict[bytes, dict[str, int]] = {}


def _word_hash(word: str, key: bytes) -> int:
    digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8, key=key).digest()
    return int.from_bytes(digest, "big")


def _word_hashes(words: Sequence[str], key: bytes) -> list[int]:
    cache = _word_caches.setdefault(key, {})
    get = cache.get
    hashes = [get(word) for word in words]
    if None in hashes:
        if len(cache) >= _WORD_CACHE_LIMIT:
            cache.clear()  # bounded memory over a long ingest; values are recomputed
        for i, value in enumerate(hashes):
            if value is None:
                hashes[i] = cache[words[i]] = _word_hash(words[i], key)
    return hashes  # type: ignore[return-value]


def _kept(words: Sequence[str], model: FeatureModel) -> list[str]:
    kept = [w for w in words if w not in model.skip]
    return kept if kept else list(words[:1])


def _starts(kept: Sequence[str], model: FeatureModel) -> list[int]:
    """Chain start positions: the first word and every antecedent."""
    antecedents = model.antecedents
    return [0, *[i for i in range(1, len(kept)) if kept[i] in antecedents]] if kept else []


def _reaches(kept: Sequence[str], starts: Sequence[int], model: FeatureModel) -> list[int]:
    """Index just past each chain: Han antecedents get ``han_chain_length`` more words."""
    plain = model.chain_length * model.chain_gap + 1
    han = model.han_chain_length * model.chain_gap + 1
    if plain == han:
        return [p + plain for p in starts]
    return [p + (han if _HAN.match(kept[p]) else plain) for p in starts]


def chains(words: Sequence[str], model: FeatureModel) -> list[tuple[str, ...]]:
    """The word chains of one sentence, in order of their antecedent (duplicates kept)."""
    kept = _kept(words, model)
    starts = _starts(kept, model)
    result: list[tuple[str, ...]] = []
    for position, reach in zip(starts, _reaches(kept, starts, model), strict=True):
        chain = tuple(kept[position : reach : model.chain_gap])
        if len(chain) >= 2 or position == 0:
            result.append(chain)
    return result


def _signed(value: int) -> int:
    value &= _MASK
    return value - (1 << 64) if value & _SIGN else value


def hash_chain(chain: Sequence[str], model: FeatureModel) -> int:
    """Stable signed 64-bit hash of one chain of words."""
    hashes = _word_hashes(chain, model.key)
    return _signed(sum(map(operator.mul, hashes, model.multipliers)))


def sentence_features(words: Sequence[str], model: FeatureModel) -> tuple[int, ...]:
    """Sorted unique Low-IDF-Sig features of a sentence's words."""
    kept = _kept(words, model)
    hashes = _word_hashes(kept, model.key)
    starts = _starts(kept, model)
    step = model.chain_gap
    multipliers = model.multipliers
    features: set[int] = set()
    for position, reach in zip(starts, _reaches(kept, starts, model), strict=True):
        chain = hashes[position:reach:step]
        if len(chain) >= 2 or position == 0:
            features.add(_signed(sum(map(operator.mul, chain, multipliers))))
    return tuple(sorted(features))
