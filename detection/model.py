"""Result types of the detection library (frozen, comparable, serialisable by the app)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["SentenceRecord", "DocumentAnalysis", "Passage", "PassageKind"]

PassageKind = Literal["verbatim", "edited", "summary"]


@dataclass(frozen=True, slots=True)
class SentenceRecord:
    """A sentence: character ``start``/``end`` in the original text and its features.

    ``features`` are sorted, unique, signed 64-bit integers.
    """

    index: int
    start: int
    end: int
    features: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DocumentAnalysis:
    """What :func:`detection.analyze` extracts from one text: its sentences with their
    Low-IDF-Sig features, and ``terms``, the ``(term id, count)`` of its distinct normalised
    words sorted by id (:mod:`detection.retrieval`)."""

    language: Literal["zh", "en", "mixed"]
    model_version: str
    sentences: tuple[SentenceRecord, ...]
    terms: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True, order=True)
class Passage:
    """A copied passage: ``start..end`` in the query text, ``source_start..source_end`` in
    document ``source``; ``score`` in (0, 1] is the mean similarity of its copied sentences
    (:func:`detection.detect`); from :func:`detection.detector.detect_refined`, the cosine of
    its two sides' term counts (Low-IDF-Sig passages) or of its two joined fragments
    (disguised copies).

    ``kind`` says what kind of copy it is: ``verbatim`` (copied words, light edits),
    ``edited`` (paraphrase, shuffled, replaced or translated words) or ``summary`` (a short
    passage condensing a longer source span); see :mod:`detection.disguise`."""

    source: int
    start: int
    end: int
    source_start: int
    source_end: int
    score: float
    kind: PassageKind = "verbatim"
