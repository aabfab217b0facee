"""Whole-document Low-IDF-Sig extraction (the fast path of :func:`analyze`), in C or numpy.

Computes exactly the features of :func:`detection.features.sentence_features` for every
sentence of a document at once: words become ids of a per-model vocabulary (one lookup per
word; a new word gets its keyed blake2b hash and its flags — skipped, antecedent, Han — once,
in C on the native path), and chains are summed as ``Σ word_hash[p + k·d] · M[k] mod 2^64``.
Ingest speed is a requirement (the app must reach 40% of tokenizer-only throughput), and the
per-chain Python loop cost as much as tokenising.

Two implementations give the same output (property tests check it, and both against the
scalar definition):

* the C extension ``detection._lisfeatures`` (detection/_lisfeatures.c, built in place by
  setup.py, which ``make run``/``make test`` run): words are looked up in a C
  table (one cache line per word instead of a dict probe's several misses; it is the native
  vocabulary's only word → id map), new words get their keyed blake2b hash (libb2) and
  flags there too, and the chains are summed per sentence with ``uint64`` wraparound — five to
  eight times faster than numpy on the dev corpus (docs/benchmarks.md);
* numpy over arrays (``uint64`` arithmetic wraps modulo 2^64 like the scalar definition): the
  fallback when the extension is not importable; its per-call overhead dominates on documents
  of a few hundred words.

:data:`NATIVE` tells which one :func:`document_features` uses.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Sequence
from functools import cache
from itertools import chain, repeat

import numpy as np

from detection.features import FeatureModel
from detection.lexicon import word_term_id

try:
    from detection import _lisfeatures
except ImportError as error:  # not built (setup.py build_ext): the numpy path below
    _lisfeatures = None  # type: ignore[assignment]
    logging.getLogger(__name__).debug("detection._lisfeatures not built (%s): numpy path", error)

__all__ = ["document_features", "document_features_and_terms", "NATIVE"]

NATIVE = _lisfeatures is not None
"""Whether :func:`document_features` runs the C extension (else the numpy fallback)."""

_SKIP, _ANTECEDENT, _HAN = 1, 2, 4
_LIMIT = 1 << 21  # words per vocabulary; beyond it a fresh one starts (bounded memory)


def _is_han(word: str) -> bool:
    """The Han test of the flags (the C one is the same); an empty word is not Han."""
    first = word[:1]
    return "\u3400" <= first <= "\u9fff" or "\uf900" <= first <= "\ufaff"


class _Vocabulary:
    """word → id, with the word's hash and flags in arrays indexed by id.

    The native path keeps word → id in ``table`` (C) only, the numpy path in ``ids``; both
    take ids from ``count`` under ``lock``, so a word that both paths met (tests mix them) has
    two ids, each with the word's own hash and flags.
    """

    def __init__(self, model: FeatureModel) -> None:
        self.model = model
        self.lock = threading.Lock()
        self.count = 0  # ids given (the next one); only written under the lock
        self.ids: dict[str, int] = {}  # the numpy path's word → id
        # The native path's word → id, in C: a dict probe costs several cache misses per word
        # on a large vocabulary, a Table slot one; new words are hashed and flagged there too.
        self.table = _lisfeatures.Table() if _lisfeatures is not None else None
        self.hashes = np.zeros(4096, dtype=np.uint64)
        self.flags = np.zeros(4096, dtype=np.uint8)
        # The word's term id (`lexicon.word_term_id`), made at its first `term_ids`.
        self.terms = np.zeros(4096, dtype=np.int64)
        self.termed = np.zeros(4096, dtype=bool)

    def __len__(self) -> int:
        """How many ids were given (the size limit counts these)."""
        return self.count

    def _reserve(self, count: int) -> None:
        """Room for ``count`` words; arrays are replaced, never resized in place, so a reader
        holding the old ones still sees every id it was given."""
        if count > len(self.hashes):
            size = max(count, 2 * len(self.hashes))
            hashes = np.zeros(size, dtype=np.uint64)
            flags = np.zeros(size, dtype=np.uint8)
            terms = np.zeros(size, dtype=np.int64)
            termed = np.zeros(size, dtype=bool)
            hashes[: len(self.hashes)] = self.hashes
            flags[: len(self.flags)] = self.flags
            terms[: len(self.terms)] = self.terms
            termed[: len(self.termed)] = self.termed
            self.hashes, self.flags = hashes, flags
            self.terms, self.termed = terms, termed

    def _flags(self, words: Sequence[str]) -> list[int]:
        skip, antecedents = self.model.skip, self.model.antecedents
        return [
            (_SKIP if word in skip else 0)
            | (_ANTECEDENT if word in antecedents else 0)
            | (_HAN if _is_han(word) else 0)
            for word in words
        ]

    def _add(self, words: Sequence[str]) -> None:
        """Give ``words`` (distinct, not in ``ids``; caller holds the lock) the next ids.

        Hashes and flags are written before the words enter ``ids``: a thread that finds a
        word there without the lock must find its hash in the arrays.
        """
        start = self.count
        stop = start + len(words)
        self._reserve(stop)
        self.hashes[start:stop] = _word_hashes(words, self.model.key)
        self.flags[start:stop] = self._flags(words)
        self.count = stop
        self.ids.update(zip(words, range(start, stop), strict=True))

    def _add_native(self, words: Sequence[str], ids: np.ndarray, missing: int) -> None:
        """Fill the ``missing`` ids of -1 in ``ids`` from the table, adding the words it does
        not have yet (another thread may have added some since the unlocked lookup): the C
        extension hashes and flags them into the arrays before they enter the table."""
        assert self.table is not None
        model = self.model
        with self.lock:  # new words: one thread at a time assigns ids
            first = self.count
            self._reserve(first + missing)
            try:
                added = self.table.add_new(
                    words,
                    ids,
                    first,
                    self.hashes,
                    self.flags,
                    model.key,
                    model.skip,
                    model.antecedents,
                )
            except BaseException:
                self.count = first + missing  # some of these ids may have been given
                raise
            self.count = first + added

    def lookup(self, words: Sequence[str], native: bool = NATIVE) -> np.ndarray:
        """The ids of ``words``; new words get theirs first.  Read the hash and flag arrays
        after this returns: they then hold every id it gave."""
        if native and self.table is not None:
            ids = np.empty(len(words), dtype=np.int64)
            missing = self.table.lookup(words, ids)  # -1 for new words; returns their count
            if missing:
                self._add_native(words, ids, missing)
            return ids
        # -1 for new words: one C-level pass, no None checks over a Python list.
        ids = np.fromiter(map(self.ids.get, words, repeat(-1)), dtype=np.int64, count=len(words))
        new = np.flatnonzero(ids < 0)
        if len(new):
            unknown = [words[i] for i in new.tolist()]
            with self.lock:  # new words: one thread at a time assigns ids
                known = self.ids
                # Another thread may have added some since the unlocked pass.
                self._add([word for word in dict.fromkeys(unknown) if word not in known])
                ids[new] = [known[word] for word in unknown]
        return ids

    def term_ids(self, words: Sequence[str], ids: np.ndarray) -> np.ndarray:
        """The term id of each of ``words`` (0: a stop word), ``ids`` their ids: a word's
        term is made once, then read from ``terms`` (a write into arrays ``_reserve`` has
        just replaced is lost and made again: the same value)."""
        terms, termed = self.terms, self.termed  # after `lookup`: they hold its ids
        found = terms[ids]
        new = np.flatnonzero(~termed[ids])
        if len(new):
            found[new] = [word_term_id(words[i]) for i in new.tolist()]
            terms[ids[new]] = found[new]
            termed[ids[new]] = True
        return found


def _word_hashes(words: Sequence[str], key: bytes) -> np.ndarray:
    """:func:`detection.features._word_hash` of every word, as one array (the numpy path's;
    the native path hashes in C).

    Copying a hasher that has already absorbed the key spares one blake2b block per word (the
    key block); the 8-byte digests are big-endian like ``int.from_bytes(digest, "big")``.
    """
    keyed = hashlib.blake2b(digest_size=8, key=key)
    digests = []
    for word in words:
        hasher = keyed.copy()
        hasher.update(word.encode("utf-8"))
        digests.append(hasher.digest())
    return np.frombuffer(b"".join(digests), dtype=">u8").astype(np.uint64)


_vocabularies: dict[FeatureModel, _Vocabulary] = {}
_vocabularies_lock = threading.Lock()


def _vocabulary(model: FeatureModel) -> _Vocabulary:
    """The model's vocabulary; a full one is replaced (never emptied in place, so a thread
    still using it stays consistent)."""
    vocabulary = _vocabularies.get(model)
    if vocabulary is None or len(vocabulary) >= _LIMIT:
        with _vocabularies_lock:
            vocabulary = _vocabularies.get(model)
            if vocabulary is None or len(vocabulary) >= _LIMIT:
                vocabulary = _vocabularies[model] = _Vocabulary(model)
    return vocabulary


def _kept_positions(
    flags: np.ndarray, firsts: np.ndarray, lasts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Token indices kept for chains (skip words out; an all-skip sentence keeps its first
    word) and the sentence of each."""
    count = len(flags)
    if firsts[0] == 0 and lasts[-1] == count and (firsts[1:] == lasts[:-1]).all():
        # Sentences cover the words one after the other (what sentence_words gives).
        sentence = np.repeat(np.arange(len(firsts)), lasts - firsts)
        keep = (flags & _SKIP) == 0
    else:
        positions = np.arange(count)
        sentence = np.searchsorted(firsts, positions, side="right") - 1
        inside = (sentence >= 0) & (positions < lasts[np.maximum(sentence, 0)])
        keep = inside & ((flags & _SKIP) == 0)
    kept_per_sentence = np.bincount(sentence[keep], minlength=len(firsts))
    keep[firsts[kept_per_sentence == 0]] = True
    kept = np.flatnonzero(keep)
    return kept, sentence[kept]


@cache
def _multipliers(model: FeatureModel) -> np.ndarray:
    return np.array(model.multipliers, dtype=np.uint64)


def _chain_values(
    hashes: np.ndarray, flags: np.ndarray, sentence: np.ndarray, model: FeatureModel
) -> tuple[np.ndarray, np.ndarray]:
    """Feature values (int64) and their sentences, one per kept chain.

    The arrays are padded past the last word with sentence -1 (matching no chain), so a chain
    running off the document needs no clipping; a chain is kept when it has a second word or
    starts its sentence.
    """
    count = len(hashes)
    first = np.empty(count, dtype=bool)
    first[:1] = True
    np.not_equal(sentence[1:], sentence[:-1], out=first[1:])
    starts = np.flatnonzero(first | ((flags & _ANTECEDENT) != 0))
    own = sentence[starts]
    multipliers = _multipliers(model)
    values = hashes[starts] * multipliers[0]
    chosen = first[starts]
    plain, han = model.chain_length, model.han_chain_length
    longest = max(plain, han)
    if longest:
        is_han = (flags[starts] & _HAN) != 0 if plain != han else None
        reach = longest * model.chain_gap
        padded_sentence = np.full(count + reach, -1, dtype=sentence.dtype)
        padded_sentence[:count] = sentence
        padded_hashes = np.zeros(count + reach, dtype=np.uint64)
        padded_hashes[:count] = hashes
        for k in range(1, longest + 1):
            target = starts + k * model.chain_gap
            valid = padded_sentence[target] == own
            if is_han is not None and k > han:
                valid &= ~is_han
            if is_han is not None and k > plain:
                valid &= is_han
            values += padded_hashes[target] * multipliers[k] * valid
            chosen |= valid
    return values[chosen].view(np.int64), own[chosen]


def document_features(
    words: Sequence[str], bounds: Sequence[tuple[int, int]], model: FeatureModel
) -> list[tuple[int, ...]]:
    """Sorted unique features of each sentence ``words[first:last]`` for ``bounds``.

    ``bounds`` are non-empty, increasing, disjoint token ranges.
    """
    return _document_features(words, bounds, model, NATIVE)


def document_features_and_terms(
    words: Sequence[str], bounds: Sequence[tuple[int, int]], model: FeatureModel
) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """:func:`document_features`, and the term id (:func:`detection.lexicon.word_term_id`,
    0 for a stop word) of each of ``words``, each word's made once per process: both from
    one vocabulary lookup."""
    vocabulary = _vocabulary(model)
    ids = vocabulary.lookup(words)
    features = _features_of(vocabulary, ids, bounds, model, NATIVE) if bounds else []
    return features, vocabulary.term_ids(words, ids)


def _document_features(
    words: Sequence[str], bounds: Sequence[tuple[int, int]], model: FeatureModel, native: bool
) -> list[tuple[int, ...]]:
    """:func:`document_features` by the C extension (``native``) or by numpy."""
    if not bounds:
        return []
    vocabulary = _vocabulary(model)
    return _features_of(vocabulary, vocabulary.lookup(words, native), bounds, model, native)


def _features_of(
    vocabulary: _Vocabulary,
    ids: np.ndarray,
    bounds: Sequence[tuple[int, int]],
    model: FeatureModel,
    native: bool,
) -> list[tuple[int, ...]]:
    """The features of the sentences ``bounds`` of words with vocabulary ``ids``."""
    hashes, flags = vocabulary.hashes, vocabulary.flags  # arrays only ever grow
    if native and _lisfeatures is not None:
        return _lisfeatures.features(
            ids,
            bounds,
            hashes,
            flags,
            model.multipliers,
            model.chain_length,
            model.han_chain_length,
            model.chain_gap,
        )
    table = np.fromiter(chain.from_iterable(bounds), dtype=np.int64, count=2 * len(bounds))
    firsts, lasts = table[0::2], table[1::2]
    word_flags = flags[ids]
    kept, sentence = _kept_positions(word_flags, firsts, lasts)
    values, owners = _chain_values(hashes[ids[kept]], word_flags[kept], sentence, model)
    order = np.lexsort((values, owners))
    values, owners = values[order], owners[order]
    fresh = np.ones(len(values), dtype=bool)
    fresh[1:] = (values[1:] != values[:-1]) | (owners[1:] != owners[:-1])
    values, owners = values[fresh], owners[fresh]
    cuts = np.searchsorted(owners, np.arange(len(bounds) + 1)).tolist()
    listed = tuple(values.tolist())  # a tuple's slices are tuples: one object per sentence
    return [listed[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]
