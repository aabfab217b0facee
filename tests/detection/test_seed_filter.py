"""The exact pre-filter of the disguised-copy stage and the query side shared by its pairs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from detection import DEFAULT_CONFIG, MemoryIndex, analyze
from detection import detector as detector_module
from detection.detector import detect_refined, query_units
from detection.disguise import align_many, align_units
from detection.seeding import (
    PairSpace,
    Synonyms,
    Units,
    coded_units,
    could_seed,
    pair_similarities,
    pair_space,
    query_side,
    seed_pairs,
    text_units,
    unit_similarities,
)
from tests.detection.test_disguise import DISGUISED, FOREIGN, ORIGINAL, UNRELATED

LEAST_DICE = min(DEFAULT_CONFIG.seed_dice, DEFAULT_CONFIG.summary_seed)

_WORDS = (
    "harbour storm engineers walls channel ships merchants cargo timber salt fish council tax "
    "barrel wine citizens library station students land river flood farmers crops spring "
    "bridge century water museum hospital biography theorem proof mountain weather path rock"
).split()

# Synonyms among _WORDS' terms (source term → query terms it may stand for), as seeding takes
# WordNet's: the shared and the single-pair paths must code them alike.
_SYNONYMS = {"ship": ("cargo",), "river": ("flood", "water"), "farmer": ("citizen",)}
_synonyms = st.sampled_from([{}, _SYNONYMS])

_sentence = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=12).map(
    lambda words: " ".join(words).capitalize() + "."
)
_text = st.lists(_sentence, max_size=10).map(" ".join)


def _could_seed(
    query: Units, sources: list[Units], *, dice: float, synonyms: Synonyms | None = None
) -> list[bool]:
    side = query_side(query)
    return could_seed(side, coded_units(side, sources, synonyms or {}), dice=dice)


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


def test_a_source_without_an_alike_unit_cannot_seed_and_has_no_passages():
    query, source = _units(DISGUISED), _units(FOREIGN)
    assert _could_seed(query, [source], dice=LEAST_DICE) == [False]
    assert align_units(0, query, source, DEFAULT_CONFIG) == []


def test_a_disguised_source_is_kept_among_others():
    query = _units(DISGUISED)
    sources = [_units(FOREIGN), _units(ORIGINAL), _units(UNRELATED + ORIGINAL), _units("")]
    assert _could_seed(query, sources, dice=LEAST_DICE) == [False, True, True, False]
    assert align_units(1, query, sources[1], DEFAULT_CONFIG)


def test_an_empty_query_seeds_nothing():
    assert _could_seed(_units(""), [_units(ORIGINAL)], dice=LEAST_DICE) == [False]
    assert _could_seed(_units(ORIGINAL), [], dice=LEAST_DICE) == []


@given(_text, st.lists(_text, min_size=1, max_size=4), st.sampled_from([0.2, 0.33, 0.5]), _synonyms)
@settings(max_examples=60)
def test_the_filter_keeps_exactly_the_sources_with_a_dice_seed(
    query_text, source_texts, dice, synonyms
):
    query = text_units(query_text, min_terms=3)
    sources = [text_units(text, min_terms=3) for text in source_texts]
    expected = [
        bool(seed_pairs(pair_space(query, s, synonyms), cosine=-1.0, dice=dice)) for s in sources
    ]
    assert _could_seed(query, sources, dice=dice, synonyms=synonyms) == expected


@given(_text, _text)
@settings(max_examples=60)
def test_a_source_the_filter_skips_has_no_disguised_passages(query_text, source_text):
    query, source = _units(query_text), _units(source_text)
    if not _could_seed(query, [source], dice=LEAST_DICE)[0]:
        assert align_units(0, query, source, DEFAULT_CONFIG) == []


@given(_text, _text)
@settings(max_examples=60)
def test_the_shared_query_side_gives_the_pair_space_of_the_pair(query_text, source_text):
    query, source = _units(query_text), _units(source_text)
    reference = _reference_pair_space(query, source)
    for space in (pair_space(query, source), pair_space(query_side(query), source)):
        for field in ("query", "source", "query_sets", "source_sets"):
            assert _same_matrix(getattr(space, field), getattr(reference, field))


@given(_text, st.lists(_text, min_size=1, max_size=3))
@settings(max_examples=25)
def test_the_filter_leaves_the_check_as_without_it(query_text, source_texts):
    query = query_text + " " + DISGUISED
    texts = [*source_texts, ORIGINAL, FOREIGN + ORIGINAL]
    config = DEFAULT_CONFIG
    index = MemoryIndex()
    for number, text in enumerate(texts):
        index.add(number, analyze(text, config))
    analysis = analyze(query, config)
    filtered = detect_refined(query, analysis, index, texts.__getitem__, config=config)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            detector_module, "could_seed", lambda _q, sources, dice: [True] * len(sources)
        )
        unfiltered = detect_refined(query, analysis, index, texts.__getitem__, config=config)
    assert filtered == unfiltered


@given(_text, st.lists(_text, max_size=5))
@settings(max_examples=60)
def test_pairs_aligned_together_give_the_passages_of_each_pair(query_text, source_texts):
    query = _units(query_text + " " + DISGUISED)
    sources = [_units(text) for text in [*source_texts, ORIGINAL, UNRELATED + ORIGINAL]]
    documents = list(range(len(sources)))
    together = align_many(documents, query_side(query), sources, DEFAULT_CONFIG)
    assert together == [
        align_units(d, query, s, DEFAULT_CONFIG) for d, s in zip(documents, sources, strict=True)
    ]
    assert together[-2]


@given(_text, st.lists(_text, min_size=1, max_size=5), _synonyms)
@settings(max_examples=60)
def test_pair_similarities_are_those_of_each_pair_to_the_bit(query_text, source_texts, synonyms):
    query = _units(query_text)
    sources = [_units(text) for text in source_texts]
    for source, (space, similarities) in zip(
        sources,
        pair_similarities(query_side(query), coded_units(query_side(query), sources, synonyms)),
        strict=True,
    ):
        alone = pair_space(query, source, synonyms)
        for field in ("query", "source", "query_sets", "source_sets"):
            assert (getattr(space, field) != getattr(alone, field)).nnz == 0
            assert getattr(space, field).shape == getattr(alone, field).shape
        expected = unit_similarities(alone)
        assert _by_pair(similarities) == _by_pair(expected)


def _by_pair(similarities) -> dict[tuple[int, int], tuple[float, float]]:  # type: ignore[no-untyped-def]
    rows, columns, cosines, dices = (part.tolist() for part in similarities)
    return {(r, c): (x, d) for r, c, x, d in zip(rows, columns, cosines, dices, strict=True)}
