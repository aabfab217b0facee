"""The query side shared by the pairs of the disguised-copy stage."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from detection import DEFAULT_CONFIG
from detection.detector import query_units
from detection.seeding import (
    PairSpace,
    Units,
    pair_space,
    query_side,
)

LEAST_DICE = min(DEFAULT_CONFIG.seed_dice, DEFAULT_CONFIG.summary_seed)

_WORDS = (
    "harbour storm engineers walls channel ships merchants cargo timber salt fish council tax "
    "barrel wine citizens library station students land river flood farmers crops spring "
    "bridge century water museum hospital biography theorem proof mountain weather path rock"
).split()

_sentence = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=12).map(
    lambda words: " ".join(words).capitalize() + "."
)
_text = st.lists(_sentence, max_size=10).map(" ".join)


def _units(text: str) -> Units:
    return query_units(text, DEFAULT_CONFIG)


def _reference_pair_space(query: Units, source: Units) -> PairSpace:
    """pair_space as written before the query side was shared: both texts' vocabulary and
    counts built for every pair."""
    vocabulary: dict[str, int] = {}
    cells = []
    for units in (query, source):
        rows, columns = [], []
        for row, unit in enumerate(units.terms):
            for word in unit:
                rows.append(row)
                columns.append(vocabulary.setdefault(word, len(vocabulary)))
        cells.append((rows, columns))
    width = max(len(vocabulary), 1)
    tf_query, tf_source = (
        sparse.csr_matrix((np.ones(len(r)), (r, c)), shape=(len(u), width))
        for (r, c), u in zip(cells, (query, source), strict=True)
    )
    sets_query = (tf_query > 0).astype(np.float64)
    sets_source = (tf_source > 0).astype(np.float64)
    held = np.asarray(sets_query.sum(axis=0)).ravel() + np.asarray(sets_source.sum(axis=0)).ravel()
    isf = sparse.diags(np.log((len(query) + len(source)) / np.maximum(held, 1.0)))
    return PairSpace(
        (tf_query @ isf).tocsr(), (tf_source @ isf).tocsr(), sets_query.tocsr(), sets_source.tocsr()
    )


def _same_matrix(a: sparse.csr_matrix, b: sparse.csr_matrix) -> bool:
    return (
        a.shape == b.shape
        and np.array_equal(a.indptr, b.indptr)
        and np.array_equal(a.indices, b.indices)
        and np.array_equal(a.data, b.data)
    )


@given(_text, _text)
@settings(max_examples=60)
def test_the_shared_query_side_gives_the_pair_space_of_the_pair(query_text, source_text):
    query, source = _units(query_text), _units(source_text)
    reference = _reference_pair_space(query, source)
    for space in (pair_space(query, source), pair_space(query_side(query), source)):
        for field in ("query", "source", "query_sets", "source_sets"):
            assert _same_matrix(getattr(space, field), getattr(reference, field))
