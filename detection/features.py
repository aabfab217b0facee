"""Low-IDF-Sig sentence features (seed 003, "Low-IDF-Sig feature extraction").

For a sentence's word sequence (stop words of the small skip list removed first, so chains
step over them):

1. antecedents are the n lowest-IDF words of the shipped IDF table (:mod:`detection.idf`) plus
   the sentence's first word, so every non-empty sentence has at least one feature;
2. for every antecedent at position p the chain is the words at p, p+d, …, p+c·d — the
   antecedent is part of its chain; chains are cut at the sentence end (a chain of at least two
   words, or the first word's chain, is kept);
3. each chain is hashed with keyed blake2b to a signed 64-bit integer (fits PostgreSQL bigint,
   identical in every process — never Python's ``hash()``).

Seed example (antecedents {as, to, that, of, from}, c=2, d=1): "as we are taking ..." yields
as:we:are, to:highlight:that, that:intel:as, ... (tests/detection/test_features.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from detection.config import DetectorConfig
from detection.idf import load_idf_model
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
    chain_gap: int
    key: bytes
    version: str


@cache
def feature_model(config: DetectorConfig) -> FeatureModel:
    """The feature model of ``config`` (cached per config) with its version string."""
    idf = load_idf_model()
    version = (
        f"lis1;idf={idf.version}@{idf.digest};n={config.antecedents};c={config.chain_length};"
        f"d={config.chain_gap};seed={config.hash_seed};text={NORMALIZE_VERSION}/"
        f"{WORDS_VERSION}/{SENTENCES_VERSION}/max{config.max_sentence_chars}"
    )
    return FeatureModel(
        antecedents=idf.antecedents(config.antecedents),
        skip=idf.skip,
        chain_length=config.chain_length,
        chain_gap=config.chain_gap,
        key=hashlib.blake2b(config.hash_seed.encode("utf-8"), digest_size=16).digest(),
        version=version,
    )


def chains(words: Sequence[str], model: FeatureModel) -> list[tuple[str, ...]]:
    """The word chains of one sentence, in order of their antecedent (duplicates kept)."""
    kept = [w for w in words if w not in model.skip]
    if not kept:
        kept = list(words[:1])
    reach = model.chain_length * model.chain_gap
    step = model.chain_gap
    result: list[tuple[str, ...]] = []
    for position, word in enumerate(kept):
        if position and word not in model.antecedents:
            continue
        chain = tuple(kept[position : position + reach + 1 : step])
        if len(chain) >= 2 or position == 0:
            result.append(chain)
    return result


def hash_chain(chain: Sequence[str], key: bytes) -> int:
    """Stable signed 64-bit hash of a chain."""
    digest = hashlib.blake2b(
        _SEPARATOR.join(chain).encode("utf-8"), digest_size=8, key=key
    ).digest()
    return int.from_bytes(digest, "big", signed=True)


def sentence_features(words: Sequence[str], model: FeatureModel) -> tuple[int, ...]:
    """Sorted unique Low-IDF-Sig features of a sentence's words."""
    return tuple(sorted({hash_chain(chain, model.key) for chain in chains(words, model)}))
