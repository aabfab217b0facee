"""Term retrieval: the terms an analysis carries, their postings, and the candidates they find."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from detection import DEFAULT_CONFIG, MemoryIndex, analyze
from detection.config import TERM_RETRIEVAL_CONFIG
from detection.detector import SourceViews, detect_with_sources, query_units
from detection.index import NORM_SCALE, term_refs, unpack_refs
from detection.lexicon import term_id
from detection.retrieval import term_candidates
from detection.scoring import match_query
from tests.detection.paraphrase import PARAPHRASE, SOURCE, UNRELATED

CONFIG = TERM_RETRIEVAL_CONFIG


def indexed(texts, config=CONFIG):
    index = MemoryIndex()
    for document, text in texts.items():
        index.add(document, analyze(text, config))
    return index


def test_an_analysis_counts_the_terms_of_its_sentence_units():
    analysis = analyze(SOURCE, CONFIG)
    words = Counter(t for unit in query_units(SOURCE, CONFIG).terms for t in unit)
    assert dict(analysis.terms) == {term_id(t): n for t, n in words.items()}
    assert [t for t, _ in analysis.terms] == sorted(t for t, _ in analysis.terms)
    assert dict(analysis.terms)[term_id("glacier")] == 2  # "Glaciers" twice, stemmed


def test_term_ids_are_stable_signed_64_bit_and_distinct():
    ids = {term_id(t) for t in ("glacier", "river", "farmer", "C01A02=", "冰川")}
    assert len(ids) == 5
    assert all(-(2**63) <= i < 2**63 and i != 0 for i in ids)
    assert term_id("glacier") == term_id("glacier")


@given(st.lists(st.integers(1, 5000), min_size=1, max_size=50), st.integers(0, 2**31 - 1))
@settings(max_examples=50, deadline=None)
def test_term_postings_carry_the_document_its_norm_and_the_capped_count(counts, document):
    terms = tuple((number, count) for number, count in enumerate(counts))
    ids, refs = term_refs(document, terms)
    documents, norms, stored = unpack_refs(refs)
    norm = math.sqrt(sum((1 + math.log(c)) ** 2 for c in counts))
    assert ids.tolist() == list(range(len(counts)))
    assert set(documents.tolist()) == {document}
    assert set(norms.tolist()) == {round(norm * NORM_SCALE)}
    assert stored.tolist() == [min(c, 4095) for c in counts]


def test_the_memory_index_returns_removes_and_limits_term_postings():
    index = indexed({1: SOURCE, 2: PARAPHRASE, 3: UNRELATED})
    glacier = term_id("glacier")
    holders = {p.document for p in index.term_postings([glacier], max_df=None)}
    assert holders == {1, 2}
    assert len(index.term_postings([glacier], max_df=1)) == 0  # in two documents
    index.remove(1)
    found = index.term_postings([glacier, term_id("symphoni")], max_df=None)
    assert set(unpack_refs(found.refs)[0].tolist()) == {2, 3}


def test_a_paraphrase_sharing_no_feature_is_found_through_its_terms():
    texts = {1: SOURCE, 2: UNRELATED}
    index = indexed(texts)
    analysis = analyze(PARAPHRASE, CONFIG)
    assert match_query(analysis, index, config=CONFIG).pairs == []  # no feature pair
    units = query_units(PARAPHRASE, CONFIG)
    assert term_candidates(units, index, exclude=(), config=CONFIG) == {1}
    assert term_candidates(units, index, exclude={1}, config=CONFIG) == set()

    views = SourceViews(texts.__getitem__, CONFIG)
    passages = detect_with_sources(PARAPHRASE, analysis, index, views, config=CONFIG)
    assert [(p.source, p.kind) for p in passages] == [(1, "edited")]
    assert passages[0].end - passages[0].start > 0.9 * len(PARAPHRASE)

    # By default there is no term retrieval, and no term in an analysis.
    plain = indexed(texts, DEFAULT_CONFIG)
    assert analyze(SOURCE).terms == ()
    views = SourceViews(texts.__getitem__, DEFAULT_CONFIG)
    assert detect_with_sources(PARAPHRASE, analyze(PARAPHRASE), plain, views) == []


def test_each_window_names_at_most_retrieval_top_sources():
    texts = {n: SOURCE for n in range(1, 6)} | {9: UNRELATED}
    units = query_units(PARAPHRASE, CONFIG)
    config = replace(CONFIG, retrieval_window=100, retrieval_top=2)  # one window
    found = term_candidates(units, indexed(texts), exclude=(), config=config)
    assert len(found) == 2 and found <= {1, 2, 3, 4, 5}


def test_terms_in_too_many_documents_are_left_out():
    # Every source holds "glacier"; with a limit below that, only the other terms rank.
    texts = {n: f"Glacier number {n} was measured." for n in range(1, 5)} | {5: SOURCE}
    config = replace(CONFIG, max_df_floor=1, retrieval_df_fraction=0.5)
    units = query_units("Glacier glacier glacier. The glacier again, a glacier.", config)
    assert term_candidates(units, indexed(texts, config), exclude=(), config=config) == set()


def test_term_retrieval_is_part_of_the_feature_model_version():
    assert analyze("a b c.", CONFIG).model_version != analyze("a b c.").model_version


def test_retrieval_settings_are_checked():
    with pytest.raises(ValueError, match="retrieval"):
        replace(CONFIG, retrieval_top=0)
    with pytest.raises(ValueError, match="retrieval"):
        replace(CONFIG, retrieval_window=0)


@pytest.mark.parametrize("block", [1, 2, 3])
def test_a_long_query_looked_up_a_block_at_a_time_finds_the_same_sources(monkeypatch, block):
    import detection.retrieval as retrieval

    texts = {1: SOURCE, 2: UNRELATED, 3: PARAPHRASE[: len(PARAPHRASE) // 2]}
    index = indexed(texts)
    query = UNRELATED + " " + PARAPHRASE + " " + UNRELATED
    units = query_units(query, CONFIG)
    config = replace(CONFIG, retrieval_window=4, retrieval_top=1)
    whole = term_candidates(units, index, exclude=(), config=config)
    monkeypatch.setattr(retrieval, "BLOCK_WINDOWS", block)
    assert term_candidates(units, index, exclude=(), config=config) == whole
    assert len(whole) >= 2


def test_a_worker_warmed_up_for_term_retrieval_has_the_thesaurus_loaded():
    from detection.detector import warm_up
    from detection.lexicon import cilin_groups

    cilin_groups.cache_clear()
    warm_up(CONFIG)
    assert cilin_groups.cache_info().currsize == 1
