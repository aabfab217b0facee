"""The inverted sentence index of seed 003: feature → sentences, with document frequencies.

:class:`SentenceIndex` is the protocol detection reads through; :class:`MemoryIndex` is the
in-memory implementation (tests, the CLI, PAN evaluation).  The PostgreSQL implementation lives
in the Django app (``documents/pg_index.py``) and answers ``postings`` in one round trip.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from typing import NamedTuple, Protocol, runtime_checkable

from detection.errors import DetectionError
from detection.model import DocumentAnalysis

__all__ = ["Posting", "PostingRow", "SentenceIndex", "MemoryIndex"]


class Posting(NamedTuple):
    """One occurrence of a feature: in sentence ``sentence`` of ``document``.

    ``size`` is the number of features of that sentence (the denominator of the similarity).
    """

    feature: int
    document: int
    sentence: int
    size: int


# What ``postings`` yields: a Posting or a plain tuple in Posting's field order. A database
# index hands its rows over as they come (no object per posting: ~1 ms of a 5,000-posting
# lookup); readers unpack by position.
PostingRow = tuple[int, int, int, int]


@runtime_checkable
class SentenceIndex(Protocol):
    """What :func:`detection.detect` needs from an index."""

    def postings(self, features: Collection[int], *, max_df: int | None) -> Iterable[PostingRow]:
        """All postings of ``features`` whose document frequency is at most ``max_df``, as
        ``(feature, document, sentence, size)`` rows (:class:`Posting`'s field order)."""
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
    """A :class:`SentenceIndex` held in dictionaries."""

    def __init__(self) -> None:
        self._postings: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
        self._df: dict[int, int] = defaultdict(int)
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
        if document in self._documents:
            self.remove(document)
        self._documents[document] = analysis
        seen: set[int] = set()
        for sentence in analysis.sentences:
            size = len(sentence.features)
            for feature in sentence.features:
                self._postings[feature].append((document, sentence.index, size))
                seen.add(feature)
        for feature in seen:
            self._df[feature] += 1

    def remove(self, document: int) -> None:
        """Forget ``document`` (no error when it is not indexed)."""
        analysis = self._documents.pop(document, None)
        if analysis is None:
            return
        features = {f for sentence in analysis.sentences for f in sentence.features}
        for feature in features:
            kept = [p for p in self._postings[feature] if p[0] != document]
            if kept:
                self._postings[feature] = kept
                self._df[feature] -= 1
            else:
                del self._postings[feature]
                del self._df[feature]

    def postings(self, features: Collection[int], *, max_df: int | None) -> list[Posting]:
        result: list[Posting] = []
        for feature in features:
            entries = self._postings.get(feature)
            if not entries or (max_df is not None and self._df[feature] > max_df):
                continue
            result.extend(Posting(feature, d, s, size) for d, s, size in entries)
        return result

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
