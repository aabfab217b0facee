"""The Low-IDF-Sig inverted sentence index: feature → sentences, with document frequencies.

:class:`SentenceIndex` is the protocol detection reads through; :class:`MemoryIndex` is the
in-memory implementation (tests, the CLI, PAN evaluation).  The PostgreSQL implementation lives
in the Django app (``documents/index/store.py``) and answers ``postings`` in one round trip.

A posting's sentence is one int64, its *reference* (:func:`pack_refs`): the document id, the
sentence number and the sentence's feature count in fixed bit fields.  Lookups hand postings
over as two int64 arrays (:class:`Postings`), not a Python object per posting: a worst-case
10,000-character query gets ~5,000 of them, and the index stores and sends the reference as
one column instead of three (docs/benchmarks.md).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import chain
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np

from detection.errors import DetectionError
from detection.model import DocumentAnalysis

__all__ = [
    "Posting", "Postings", "SentenceIndex", "MemoryIndex", "pack_refs", "unpack_refs",
    "MAX_DOCUMENT_ID", "MAX_SENTENCES", "MAX_SIZE", "NORM_SCALE", "term_refs",
]  # fmt: skip

# The reference's bit fields, high to low: document 31 bits, sentence 20, size 12 (63 bits:
# references are non-negative int64, so their order is (document, sentence) order).
_SENTENCE_SHIFT, _DOCUMENT_SHIFT = 12, 32
MAX_SIZE = (1 << _SENTENCE_SHIFT) - 1  # larger feature counts are stored as this
MAX_SENTENCES = 1 << (_DOCUMENT_SHIFT - _SENTENCE_SHIFT)  # per document
MAX_DOCUMENT_ID = (1 << 31) - 1
#: A term posting's sentence field holds its document's norm times NORM_SCALE.
NORM_SCALE = 16


class Posting(NamedTuple):
    """One occurrence of a feature: in sentence ``sentence`` of ``document``.

    ``size`` is the number of features of that sentence (the denominator of the similarity),
    at most :data:`MAX_SIZE` (a sentence of ``max_sentence_chars`` characters has far fewer).
    """

    feature: int
    document: int
    sentence: int
    size: int


def pack_refs(documents: np.ndarray, sentences: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The int64 references of postings (arrays of equal length); sizes above
    :data:`MAX_SIZE` are stored as MAX_SIZE. Raises DetectionError for a document id or a
    sentence number the fields cannot hold."""
    documents, sentences = np.asarray(documents, np.int64), np.asarray(sentences, np.int64)
    if len(documents) and (documents.min() < 0 or documents.max() > MAX_DOCUMENT_ID):
        raise DetectionError(f"document ids must lie in 0..{MAX_DOCUMENT_ID} to be indexed")
    if len(sentences) and sentences.min() < 0:
        raise DetectionError("sentence numbers must not be negative")
    if len(sentences) and sentences.max() >= MAX_SENTENCES:
        raise DetectionError(
            f"a document with more than {MAX_SENTENCES:,} sentences cannot be indexed "
            f"(sentence {int(sentences.max()):,}); split it into parts"
        )
    sizes = np.clip(np.asarray(sizes, np.int64), 0, MAX_SIZE)
    return (documents << _DOCUMENT_SHIFT) | (sentences << _SENTENCE_SHIFT) | sizes


def unpack_refs(refs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(documents, sentences, sizes) of references made by :func:`pack_refs`."""
    refs = np.asarray(refs, np.int64)
    return (
        refs >> _DOCUMENT_SHIFT,
        (refs >> _SENTENCE_SHIFT) & (MAX_SENTENCES - 1),
        refs & MAX_SIZE,
    )


def term_refs(document: int, terms: tuple[tuple[int, int], ...]) -> tuple[np.ndarray, np.ndarray]:
    """(term ids, references) of a document's term postings (:mod:`detection.retrieval`):
    the sentence field holds the document's norm ``sqrt(sum((1 + ln count)^2))`` times
    :data:`NORM_SCALE`, the size field the term's count (both capped to their fields)."""
    ids = np.fromiter((t for t, _ in terms), np.int64, len(terms))
    counts = np.fromiter((c for _, c in terms), np.int64, len(terms))
    weights = 1.0 + np.log(np.maximum(counts, 1))
    norm = min(MAX_SENTENCES - 1, max(1, round(float(np.sqrt(weights @ weights)) * NORM_SCALE)))
    documents = np.full(len(terms), document, np.int64)
    return ids, pack_refs(documents, np.full(len(terms), norm, np.int64), counts)


@dataclass(frozen=True, eq=False)
class Postings:
    """What ``SentenceIndex.postings`` returns: one element per posting in two int64 arrays,
    the feature and the sentence reference (:func:`pack_refs`). Iterating yields
    :class:`Posting` objects (for tests and small callers; detection reads the arrays)."""

    features: np.ndarray
    refs: np.ndarray

    @classmethod
    def empty(cls) -> Postings:
        return cls(np.empty(0, np.int64), np.empty(0, np.int64))

    def __len__(self) -> int:
        return len(self.features)

    def __iter__(self) -> Iterator[Posting]:
        documents, sentences, sizes = unpack_refs(self.refs)
        columns = (self.features, documents, sentences, sizes)
        return (Posting(*row) for row in zip(*(c.tolist() for c in columns), strict=True))


@runtime_checkable
class SentenceIndex(Protocol):
    """What :func:`detection.detect` needs from an index."""

    def postings(self, features: Collection[int], *, max_df: int | None) -> Postings:
        """All postings of ``features`` whose document frequency is at most ``max_df``."""
        ...

    def term_postings(self, terms: Collection[int], *, max_df: int | None) -> Postings:
        """The term postings (:mod:`detection.retrieval`) of ``terms`` in at most ``max_df``
        documents: one per (term, document)."""
        ...

    def document_count(self) -> int:
        """Number of indexed documents."""
        ...

    def spans(
        self, wanted: Mapping[int, Collection[int]]
    ) -> Mapping[int, Mapping[int, tuple[int, int]]]:
        """Character ``(start, end)`` of the sentences ``wanted[document]`` of each document,
        all asked at once (one round trip for every candidate source of a check); sentences
        or documents that do not exist are left out."""
        ...


class MemoryIndex:
    """A :class:`SentenceIndex` held in dictionaries (feature → its postings' references;
    term → its term postings' references)."""

    def __init__(self) -> None:
        self._postings: dict[int, list[int]] = defaultdict(list)
        self._df: dict[int, int] = defaultdict(int)
        self._terms: dict[int, list[int]] = defaultdict(list)
        self._documents: dict[int, DocumentAnalysis] = {}
        self._model_version: str | None = None

    def add(self, document: int, analysis: DocumentAnalysis) -> None:
        """Index ``analysis`` as ``document`` (replacing an earlier version of it)."""
        if self._model_version is None:
            self._model_version = analysis.model_version
        elif analysis.model_version != self._model_version:
            raise DetectionError(
                f"index holds features of model {self._model_version!r}, not "
                f"{analysis.model_version!r}: re-analyze with the same DetectorConfig"
            )
        sentences = analysis.sentences
        refs = pack_refs(  # raises for what a reference cannot hold, before anything changes
            np.full(len(sentences), document, np.int64),
            np.fromiter((s.index for s in sentences), np.int64, len(sentences)),
            np.fromiter((len(s.features) for s in sentences), np.int64, len(sentences)),
        ).tolist()
        if document in self._documents:
            self.remove(document)
        self._documents[document] = analysis
        seen: set[int] = set()
        for sentence, ref in zip(sentences, refs, strict=True):
            for feature in sentence.features:
                self._postings[feature].append(ref)
                seen.add(feature)
        for feature in seen:
            self._df[feature] += 1
        if analysis.terms:
            ids, term_postings = term_refs(document, analysis.terms)
            for term, ref in zip(ids.tolist(), term_postings.tolist(), strict=True):
                self._terms[term].append(ref)

    def remove(self, document: int) -> None:
        """Forget ``document`` (no error when it is not indexed)."""
        analysis = self._documents.pop(document, None)
        if analysis is None:
            return
        features = {f for sentence in analysis.sentences for f in sentence.features}
        for feature in features:
            kept = [r for r in self._postings[feature] if r >> _DOCUMENT_SHIFT != document]
            if kept:
                self._postings[feature] = kept
                self._df[feature] -= 1
            else:
                del self._postings[feature]
                del self._df[feature]
        for term, _ in analysis.terms:
            kept = [r for r in self._terms[term] if r >> _DOCUMENT_SHIFT != document]
            if kept:
                self._terms[term] = kept
            else:
                del self._terms[term]

    def postings(self, features: Collection[int], *, max_df: int | None) -> Postings:
        return _flat(
            (int(f), refs)
            for f in features
            if (refs := self._postings.get(f)) and (max_df is None or self._df[f] <= max_df)
        )

    def term_postings(self, terms: Collection[int], *, max_df: int | None) -> Postings:
        return _flat(
            (int(t), refs)
            for t in terms
            if (refs := self._terms.get(t)) and (max_df is None or len(refs) <= max_df)
        )

    def document_count(self) -> int:
        return len(self._documents)

    def spans(self, wanted: Mapping[int, Collection[int]]) -> dict[int, dict[int, tuple[int, int]]]:
        found: dict[int, dict[int, tuple[int, int]]] = {}
        for document, sentences in wanted.items():
            analysis = self._documents.get(document)
            if analysis is not None:
                records = analysis.sentences
                found[document] = {
                    i: (records[i].start, records[i].end)
                    for i in sentences
                    if 0 <= i < len(records)
                }
        return found


def _flat(found: Iterable[tuple[int, list[int]]]) -> Postings:
    """The :class:`Postings` of ``(feature, its references)`` pairs."""
    pairs = list(found)
    if not pairs:
        return Postings.empty()
    counts = [len(refs) for _, refs in pairs]
    return Postings(
        np.repeat(np.array([f for f, _ in pairs], np.int64), counts),
        np.fromiter(chain.from_iterable(refs for _, refs in pairs), np.int64, sum(counts)),
    )
