"""Seeding that survives edits: sentence pairs by bag-of-words similarity.

Sanchez-Perez, Gelbukh and Sidorov (PAN 2014) seed a document pair with every sentence pair
whose tf-isf cosine and Dice coefficient both exceed a threshold.  Words are normalised
terms (:mod:`detection.lexicon`: stems, stop words dropped, Chinese synonyms folded), so
shuffled, replaced, dropped or inserted words lower the similarity a little instead of
breaking a chain as they do for Low-IDF-Sig features.

- Units: the sentences of :func:`detection.sentences.split_sentences`; a sentence with fewer
  than ``min_unit_terms`` terms is annexed to the next one (headings, fragments), the last one
  to the one before.
- Weights: tf · isf with isf = log(units of both texts / units holding the term), computed
  over the pair, so a term frequent in either text weighs little.
- Seeds: unit pairs with cosine > ``seed_cosine`` and Dice (of the term sets) > ``seed_dice``.

The pair's similarities are two sparse matrix products (scipy), not a loop over unit pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import sparse

from detection.lexicon import terms
from detection.normalize import normalized_once, original_spans
from detection.sentences import EnglishSplitter, split_sentences
from detection.words import sentence_words

__all__ = ["Units", "Seed", "PairSpace", "text_units", "pair_space", "seed_pairs"]

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Units:
    """Sentence units of one text: character ``spans`` in the original text, ``terms`` each."""

    spans: tuple[Span, ...]
    terms: tuple[tuple[str, ...], ...]

    def __len__(self) -> int:
        return len(self.spans)

    def chars(self, first: int, last: int) -> Span:
        """Character span of units ``first..last`` (inclusive)."""
        return self.spans[first][0], self.spans[last][1]


class Seed(NamedTuple):
    """Query unit ``query`` and source unit ``source`` share enough terms."""

    query: int
    source: int
    cosine: float
    dice: float


def text_units(
    text: str, *, min_terms: int, max_chars: int = 300, english: EnglishSplitter = "punkt"
) -> Units:
    """The sentence units of ``text`` with their terms (see the module docstring)."""
    normalized, offsets = normalized_once(text)
    spans = split_sentences(normalized, max_chars=max_chars, english=english)
    words, bounds, kept = sentence_words(normalized, spans)
    kept_spans = original_spans(offsets, [spans[number] for number in kept])
    merged_spans: list[Span] = []
    merged_terms: list[tuple[str, ...]] = []
    pending: list[str] = []
    pending_start: int | None = None
    for (start, end), (first, last) in zip(kept_spans, bounds, strict=True):
        found = pending + terms(words[first:last])
        begin = start if pending_start is None else pending_start
        if len(found) < min_terms:
            pending, pending_start = found, begin
            continue
        merged_spans.append((begin, end))
        merged_terms.append(tuple(found))
        pending, pending_start = [], None
    if pending_start is not None and pending:
        if merged_spans:
            merged_spans[-1] = (merged_spans[-1][0], kept_spans[-1][1])
            merged_terms[-1] = merged_terms[-1] + tuple(pending)
        else:
            merged_spans.append((pending_start, kept_spans[-1][1]))
            merged_terms.append(tuple(pending))
    return Units(tuple(merged_spans), tuple(merged_terms))


@dataclass(frozen=True, slots=True)
class PairSpace:
    """tf-isf unit vectors of a document pair over their joint vocabulary (rows: units)."""

    query: sparse.csr_matrix
    source: sparse.csr_matrix
    query_sets: sparse.csr_matrix
    source_sets: sparse.csr_matrix

    def fragment_cosine(self, query: Span, source: Span) -> float:
        """Cosine of the summed vectors of query units ``query`` and source units ``source``
        (inclusive ranges): how alike the two joined fragments are."""
        a = _summed_rows(self.query, query)
        b = _summed_rows(self.source, source)
        norm = float(np.linalg.norm(a) * np.linalg.norm(b))
        return float(a @ b) / norm if norm else 0.0


def _summed_rows(matrix: sparse.csr_matrix, rows: Span) -> np.ndarray:
    """Sum of rows ``rows[0]..rows[1]`` of a CSR matrix as a dense vector (read from its
    arrays: slicing would build a new sparse matrix for every fragment)."""
    first, last = matrix.indptr[rows[0]], matrix.indptr[rows[1] + 1]
    return np.bincount(
        matrix.indices[first:last], weights=matrix.data[first:last], minlength=matrix.shape[1]
    )


def _counts(
    units: Sequence[tuple[str, ...]], vocabulary: dict[str, int]
) -> tuple[list[int], list[int]]:
    """(row, column) of every term occurrence; new terms are added to ``vocabulary``."""
    rows: list[int] = []
    columns: list[int] = []
    for row, unit in enumerate(units):
        for word in unit:
            rows.append(row)
            columns.append(vocabulary.setdefault(word, len(vocabulary)))
    return rows, columns


def _matrix(cells: tuple[list[int], list[int]], shape: tuple[int, int]) -> sparse.csr_matrix:
    rows, columns = cells
    data = np.ones(len(rows), dtype=np.float64)
    return sparse.csr_matrix((data, (rows, columns)), shape=shape)  # duplicates are summed


def _unit_rows(matrix: sparse.csr_matrix) -> sparse.csr_matrix:
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    return sparse.diags(1.0 / np.maximum(norms, 1e-12)) @ matrix


def pair_space(query: Units, source: Units) -> PairSpace:
    """The tf-isf vectors of both texts' units (isf over the units of both)."""
    vocabulary: dict[str, int] = {}
    query_cells = _counts(query.terms, vocabulary)
    source_cells = _counts(source.terms, vocabulary)
    width = max(len(vocabulary), 1)
    tf_query = _matrix(query_cells, (len(query), width))
    tf_source = _matrix(source_cells, (len(source), width))
    sets_query = (tf_query > 0).astype(np.float64)
    sets_source = (tf_source > 0).astype(np.float64)
    held = np.asarray(sets_query.sum(axis=0)).ravel() + np.asarray(sets_source.sum(axis=0)).ravel()
    isf = sparse.diags(np.log((len(query) + len(source)) / np.maximum(held, 1.0)))
    return PairSpace(
        (tf_query @ isf).tocsr(), (tf_source @ isf).tocsr(), sets_query.tocsr(), sets_source.tocsr()
    )


def seed_pairs(space: PairSpace, *, cosine: float, dice: float) -> list[Seed]:
    """Unit pairs with cosine > ``cosine`` and Dice > ``dice``, in (query, source) order."""
    if not space.query.shape[0] or not space.source.shape[0]:
        return []
    shared = (space.query_sets @ space.source_sets.T).tocoo()
    if not shared.nnz:
        return []
    query_sizes = np.asarray(space.query_sets.sum(axis=1)).ravel()
    source_sizes = np.asarray(space.source_sets.sum(axis=1)).ravel()
    rows, columns = shared.row, shared.col
    dices = 2 * shared.data / (query_sizes[rows] + source_sizes[columns])
    cosines_matrix = (_unit_rows(space.query) @ _unit_rows(space.source).T).tocsr()
    cosines = np.asarray(cosines_matrix[rows, columns]).ravel()
    kept = np.flatnonzero((dices > dice) & (cosines > cosine))
    order = np.lexsort((columns[kept], rows[kept]))
    kept = kept[order]
    return [
        Seed(q, s, c, d)
        for q, s, c, d in zip(
            rows[kept].tolist(), columns[kept].tolist(), cosines[kept].tolist(),
            dices[kept].tolist(), strict=True,
        )
    ]  # fmt: skip
