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

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import sparse

from detection.lexicon import terms
from detection.normalize import normalized_once, original_spans
from detection.sentences import EnglishSplitter, split_sentences
from detection.words import sentence_words

__all__ = [
    "Units", "Seed", "PairSpace", "QuerySide", "UnitSimilarities", "text_units", "query_side",
    "pair_space", "unit_similarities", "pair_similarities", "seeds_above", "seed_pairs",
    "could_seed", "CodedUnits", "coded_units", "Synonyms",
]  # fmt: skip

Span = tuple[int, int]
Synonyms = Mapping[str, Sequence[str]]
_NO_SYNONYMS: Synonyms = {}


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
    units: Sequence[tuple[str, ...]],
    vocabulary: dict[str, int],
    known: int = 0,
    synonyms: Synonyms = _NO_SYNONYMS,
) -> tuple[list[int], list[int]]:
    """(row, column) of every term occurrence (:func:`_code`); new terms are added to
    ``vocabulary``."""
    rows: list[int] = []
    columns: list[int] = []
    for row, unit in enumerate(units):
        for word in unit:
            rows.append(row)
            columns.append(_code(word, vocabulary, known, synonyms))
    return rows, columns


def _code(word: str, codes: dict[str, int], known: int, synonyms: Synonyms) -> int:
    """The code of a source term: its own if it has one, else that of the first of its
    ``synonyms`` among the query's terms (codes below ``known``), else a new one."""
    code = codes.get(word)
    if code is not None:
        return code
    for other in synonyms.get(word, ()):
        code = codes.get(other)
        if code is not None and code < known:
            return code
    return codes.setdefault(word, len(codes))


def _matrix(
    cells: tuple[Sequence[int] | np.ndarray, Sequence[int] | np.ndarray], shape: tuple[int, int]
) -> sparse.csr_matrix:
    rows, columns = cells
    data = np.ones(len(rows), dtype=np.float64)
    return sparse.csr_matrix((data, (rows, columns)), shape=shape)  # duplicates are summed


def _widened(matrix: sparse.csr_matrix, width: int) -> sparse.csr_matrix:
    """``matrix`` with ``width`` columns (the new ones empty): the arrays of a CSR matrix in
    canonical form do not depend on its width."""
    return sparse.csr_matrix(
        (matrix.data, matrix.indices, matrix.indptr), shape=(matrix.shape[0], width)
    )


def _unit_rows(matrix: sparse.csr_matrix) -> sparse.csr_matrix:
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    return sparse.diags(1.0 / np.maximum(norms, 1e-12)) @ matrix


@dataclass(frozen=True, slots=True)
class QuerySide:
    """The query's part of :func:`pair_space`, the same against every source: its terms come
    first in the pair's vocabulary, so their columns and counts are those of any pair."""

    units: Units
    vocabulary: dict[str, int]
    tf: sparse.csr_matrix  # as many columns as the query has distinct terms
    held: np.ndarray  # units holding each term


def query_side(query: Units) -> QuerySide:
    """The query's vocabulary, term counts and held counts, made once for many sources."""
    vocabulary: dict[str, int] = {}
    cells = _counts(query.terms, vocabulary)
    tf = _matrix(cells, (len(query), max(len(vocabulary), 1)))
    held = np.asarray((tf > 0).astype(np.float64).sum(axis=0)).ravel()[: len(vocabulary)]
    return QuerySide(query, vocabulary, tf, held)


def pair_space(
    query: Units | QuerySide, source: Units, synonyms: Synonyms = _NO_SYNONYMS
) -> PairSpace:
    """The tf-isf vectors of both texts' units (isf over the units of both); ``query`` may be
    its :func:`query_side`, made once for many sources; a source term counts as the query
    term it is one of the ``synonyms`` of (module docstring)."""
    side = query if isinstance(query, QuerySide) else query_side(query)
    vocabulary = dict(side.vocabulary)
    source_cells = _counts(source.terms, vocabulary, len(side.vocabulary), synonyms)
    width = max(len(vocabulary), 1)
    tf_query = _widened(side.tf, width)
    tf_source = _matrix(source_cells, (len(source), width))
    sets_query = (tf_query > 0).astype(np.float64)
    sets_source = (tf_source > 0).astype(np.float64)
    held = np.asarray(sets_source.sum(axis=0)).ravel()
    held[: len(side.held)] += side.held
    isf = sparse.diags(np.log((len(side.units) + len(source)) / np.maximum(held, 1.0)))
    return PairSpace(
        (tf_query @ isf).tocsr(), (tf_source @ isf).tocsr(), sets_query.tocsr(), sets_source.tocsr()
    )


class UnitSimilarities(NamedTuple):
    """Cosine and Dice of every unit pair sharing a term (query unit ``rows``, source unit
    ``columns``, in the order of the sparse product)."""

    rows: np.ndarray
    columns: np.ndarray
    cosines: np.ndarray
    dices: np.ndarray


def unit_similarities(space: PairSpace) -> UnitSimilarities:
    """The similarities behind :func:`seed_pairs`, computed once for several thresholds."""
    empty = np.zeros(0, dtype=np.int64)
    nothing = UnitSimilarities(empty, empty, np.zeros(0), np.zeros(0))
    if not space.query.shape[0] or not space.source.shape[0]:
        return nothing
    shared = (space.query_sets @ space.source_sets.T).tocoo()
    if not shared.nnz:
        return nothing
    query_sizes = np.asarray(space.query_sets.sum(axis=1)).ravel()
    source_sizes = np.asarray(space.source_sets.sum(axis=1)).ravel()
    rows, columns = shared.row, shared.col
    dices = 2 * shared.data / (query_sizes[rows] + source_sizes[columns])
    cosines_matrix = (_unit_rows(space.query) @ _unit_rows(space.source).T).tocsr()
    cosines = np.asarray(cosines_matrix[rows, columns]).ravel()
    return UnitSimilarities(rows, columns, cosines, dices)


def seeds_above(similarities: UnitSimilarities, *, cosine: float, dice: float) -> list[Seed]:
    """Unit pairs with cosine > ``cosine`` and Dice > ``dice``, in (query, source) order."""
    rows, columns, cosines, dices = similarities
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


class CodedUnits(NamedTuple):
    """A source's term occurrences as integers: ``rows`` (the unit) and ``codes`` (a query
    term's column in the query's vocabulary, any other term a code from ``len(vocabulary)``
    on, shared by the sources coded together)."""

    length: int  # units
    rows: np.ndarray
    codes: np.ndarray


def coded_units(
    query: QuerySide, sources: Sequence[Units], synonyms: Synonyms = _NO_SYNONYMS
) -> list[CodedUnits]:
    """``sources`` coded against the query's vocabulary (with ``synonyms`` as
    :func:`pair_space` takes them), the one pass over their terms that :func:`could_seed` and
    :func:`pair_similarities` share."""
    codes = dict(query.vocabulary)
    known = len(codes)
    coded = []
    for source in sources:
        rows: list[int] = []
        found: list[int] = []
        for row, unit in enumerate(source.terms):
            for word in unit:
                rows.append(row)
                found.append(_code(word, codes, known, synonyms))
        coded.append(
            CodedUnits(len(source), np.array(rows, dtype=np.int64), np.array(found, dtype=np.int64))
        )
    return coded


def pair_similarities(
    side: QuerySide, sources: Sequence[CodedUnits]
) -> Iterator[tuple[PairSpace, UnitSimilarities]]:
    """:func:`pair_space` and :func:`unit_similarities` of the query with each of ``sources``
    (:func:`coded_units`), the same to the last bit, with one sparse operation of each kind
    for all pairs.

    The pairs are the diagonal blocks of one matrix on each side (pair ``p``'s rows and its
    own vocabulary's columns): every operation works row by row and adds in the order of a
    row's entries, which are the same inside a block as in the pair's own matrices, so a
    batch only saves the per-call overhead of scipy, which is most of a small pair's time.

    The pairs come one batch at a time: a pair's matrices keep their batch's arrays, tens of
    megabytes for a long query, so a caller should let go of each pair before the next.
    """
    step = batch_pairs(side.tf.nnz)
    for first in range(0, len(sources), step):
        yield from _batch_similarities(side, sources[first : first + step])


# Pairs per block matrix, and the query entries its repeated query side may hold: the query's
# matrix is copied once per pair of a batch, so a long query (a 20 MB text has millions of
# entries) is batched by fewer pairs, down to one. Bounds the matrices' size, not the results.
_BATCH_PAIRS = 64
_BATCH_QUERY_ENTRIES = 1 << 20


def batch_pairs(query_entries: int) -> int:
    """How many pairs :func:`pair_similarities` computes in one block matrix for a query
    side of ``query_entries`` stored entries."""
    return max(1, min(_BATCH_PAIRS, _BATCH_QUERY_ENTRIES // max(query_entries, 1)))


def _batch_similarities(
    side: QuerySide, sources: Sequence[CodedUnits]
) -> list[tuple[PairSpace, UnitSimilarities]]:
    query_length, count = len(side.units), len(sources)
    row_parts: list[np.ndarray] = []
    column_parts: list[np.ndarray] = []
    widths: list[int] = []
    lengths: list[int] = []
    first_columns: list[int] = []
    first_rows: list[int] = []
    for source in sources:
        columns, width = _pair_columns(source.codes, len(side.vocabulary))
        first_rows.append(sum(lengths))
        first_columns.append(sum(widths))
        row_parts.append(source.rows + first_rows[-1])
        column_parts.append(columns + first_columns[-1])
        widths.append(max(width, 1))
        lengths.append(source.length)
    shape = (sum(lengths), max(sum(widths), 1))
    tf_source = _matrix((_joined(row_parts), _joined(column_parts)), shape)
    tf_query = _repeated(side.tf, first_columns, shape[1])
    sets_query = (tf_query > 0).astype(np.float64)
    sets_source = (tf_source > 0).astype(np.float64)
    held = np.asarray(sets_source.sum(axis=0)).ravel()
    isf = []
    for number in range(count):
        own = held[first_columns[number] : first_columns[number] + widths[number]]
        own[: len(side.held)] += side.held
        isf.append(np.log((query_length + lengths[number]) / np.maximum(own, 1.0)))
    weights = sparse.diags(np.concatenate(isf) if isf else np.zeros(0))
    batch = PairSpace(
        (tf_query @ weights).tocsr(),
        (tf_source @ weights).tocsr(),
        sets_query.tocsr(),
        sets_source.tocsr(),
    )
    similarities = unit_similarities(batch)
    pair_of = similarities.rows // max(query_length, 1)
    found = []
    for number in range(count):
        query_rows = (number * query_length, query_length)
        source_rows = (first_rows[number], lengths[number])
        block = (first_columns[number], widths[number])
        space = PairSpace(
            _block(batch.query, query_rows, block),
            _block(batch.source, source_rows, block),
            _block(batch.query_sets, query_rows, block),
            _block(batch.source_sets, source_rows, block),
        )
        mine = np.flatnonzero(pair_of == number)
        found.append((space, UnitSimilarities(
            similarities.rows[mine] - query_rows[0],
            similarities.columns[mine] - source_rows[0],
            similarities.cosines[mine],
            similarities.dices[mine],
        )))  # fmt: skip
    return found


def _pair_columns(codes: np.ndarray, known: int) -> tuple[np.ndarray, int]:
    """The columns of a source's term ``codes`` in its pair's vocabulary, as :func:`_counts`
    numbers them on a copy of the query's (``known`` terms): query terms keep theirs, the
    others follow in the order they first occur; and the pair's vocabulary size."""
    columns = codes.copy()
    new = codes >= known
    if not new.any():
        return columns, known
    distinct, first = np.unique(codes[new], return_index=True)
    rank = np.empty(len(distinct), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(len(distinct))
    columns[new] = known + rank[np.searchsorted(distinct, codes[new])]
    return columns, known + len(distinct)


def _joined(parts: Sequence[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _repeated(
    matrix: sparse.csr_matrix, first_columns: Sequence[int], width: int
) -> sparse.csr_matrix:
    """``matrix`` once per block, shifted to the block's first column, stacked."""
    count, entries = len(first_columns), matrix.nnz
    indptr = [np.zeros(1, dtype=np.int64)]
    indptr += [matrix.indptr[1:].astype(np.int64) + k * entries for k in range(count)]
    indices = [matrix.indices.astype(np.int64) + first for first in first_columns]
    return sparse.csr_matrix(
        (
            np.tile(matrix.data, count),
            np.concatenate(indices) if indices else np.zeros(0, dtype=np.int64),
            np.concatenate(indptr),
        ),
        shape=(matrix.shape[0] * count, width),
    )


def _block(
    matrix: sparse.csr_matrix, rows: tuple[int, int], columns: tuple[int, int]
) -> sparse.csr_matrix:
    """The block of ``matrix`` at (first, count) ``rows`` and ``columns``, which holds every
    entry of those rows."""
    (first, count), (first_column, width) = rows, columns
    start, end = matrix.indptr[first], matrix.indptr[first + count]
    return sparse.csr_matrix(
        (
            matrix.data[start:end],
            matrix.indices[start:end] - first_column,
            matrix.indptr[first : first + count + 1] - start,
        ),
        shape=(count, width),
    )


def seed_pairs(space: PairSpace, *, cosine: float, dice: float) -> list[Seed]:
    """Unit pairs with cosine > ``cosine`` and Dice > ``dice``, in (query, source) order."""
    return seeds_above(unit_similarities(space), cosine=cosine, dice=dice)


def could_seed(query: QuerySide, sources: Sequence[CodedUnits], *, dice: float) -> list[bool]:
    """Whether any unit pair of the query and each of ``sources`` (:func:`coded_units`) has a
    Dice coefficient of their term sets above ``dice``: a source without one has no seed at a
    Dice threshold of ``dice`` or more, whatever the weights (Dice counts terms, the cosine
    weighs them per pair).

    All sources at once: one sparse product of the query's term sets with the stacked term
    sets of every source unit (columns: the query's terms; a unit's other terms only count in
    its size).  Dice is computed as :func:`unit_similarities` does, so the two agree exactly.
    """
    known = len(query.vocabulary)
    if not len(query.units) or not known or not sources:
        return [False] * len(sources)
    offsets = np.cumsum([0] + [source.length for source in sources])
    units = _joined(
        [source.rows + offset for source, offset in zip(sources, offsets, strict=False)]
    )
    codes = _joined([source.codes for source in sources])
    total = max(int(codes.max(initial=0)) + 1, 1)
    pairs = np.unique(units * total + codes)  # each term once per unit
    units, codes = pairs // total, pairs % total
    source_sizes = np.bincount(units, minlength=int(offsets[-1])).astype(np.float64)
    held = codes < known
    source_sets = sparse.csr_matrix(
        (np.ones(int(held.sum())), (units[held], codes[held])), shape=(int(offsets[-1]), known)
    )
    query_sets = (query.tf > 0).astype(np.float64)  # as many columns as it has terms
    shared = (query_sets @ source_sets.T).tocoo()
    query_sizes = np.diff(query_sets.indptr).astype(np.float64)
    dices = 2 * shared.data / (query_sizes[shared.row] + source_sizes[shared.col])
    owners = np.repeat(np.arange(len(sources)), [source.length for source in sources])
    seeded = np.zeros(len(sources), dtype=bool)
    seeded[owners[shared.col[dices > dice]]] = True
    return seeded.tolist()
