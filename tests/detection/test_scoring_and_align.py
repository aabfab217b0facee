"""Copy detection through the index (scoring) and sequence matching (align)."""

import dataclasses
import math
from collections import Counter, defaultdict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from detection import (
    DEFAULT_CONFIG,
    DetectionError,
    DocumentAnalysis,
    MemoryIndex,
    Posting,
    SentenceIndex,
    SentenceRecord,
)
from detection.align import align, cluster_pairs, split_at_source_gaps
from detection.features import feature_model
from detection.index import MAX_DOCUMENT_ID, MAX_SENTENCES, MAX_SIZE, pack_refs, unpack_refs
from detection.scoring import SentencePair, copied_pairs, match_query, similarity

VERSION = feature_model(DEFAULT_CONFIG).version


def document(*feature_sets, length=10):
    records = tuple(
        SentenceRecord(i, i * length, (i + 1) * length, tuple(sorted(set(f))))
        for i, f in enumerate(feature_sets)
    )
    return DocumentAnalysis("en", VERSION, records)


def test_similarity_measures():
    assert similarity(2, 4, 8, "jaccard") == pytest.approx(2 / 10)
    assert similarity(2, 4, 8, "overlap") == pytest.approx(2 / 4)
    assert similarity(2, 4, 8, "containment") == pytest.approx(2 / 4)
    assert similarity(0, 4, 8, "jaccard") == 0.0


def test_memory_index_counts_document_frequency_and_prunes():
    index = MemoryIndex()
    index.add(1, document({1, 2, 3}, {3, 4}))
    index.add(2, document({3, 9}))
    assert isinstance(index, SentenceIndex)
    assert index.document_count() == 2
    assert sorted(index.postings({3}, max_df=None)) == [
        Posting(3, 1, 0, 3),
        Posting(3, 1, 1, 2),
        Posting(3, 2, 0, 2),
    ]
    assert list(index.postings({3}, max_df=1)) == []
    assert list(index.postings({1}, max_df=1)) == [Posting(1, 1, 0, 3)]
    assert index.spans({1: {1, 99}, 404: {0}}) == {1: {1: (10, 20)}}
    index.remove(1)
    assert list(index.postings({3}, max_df=1)) == [Posting(3, 2, 0, 2)]
    assert index.document_count() == 1


def test_memory_index_refuses_another_model_version():
    index = MemoryIndex()
    index.add(1, document({1, 2}))
    with pytest.raises(DetectionError, match="same DetectorConfig"):
        index.add(2, DocumentAnalysis("en", "other-model", ()))


def test_copied_pairs_need_shared_features_above_the_threshold():
    index = MemoryIndex()
    index.add(7, document({1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10}))
    query = document({1, 2, 3, 4}, {5, 6, 50, 51, 52, 53, 54, 55}, {9, 99})
    config = dataclasses.replace(
        DEFAULT_CONFIG, sentence_threshold=0.3, min_shared=2, extension_threshold=None
    )
    pairs = copied_pairs(query, index, config=config)
    assert pairs == [SentencePair(7, 0, 0, 1.0)]  # 2/10 and 1/3 fail (score, min_shared)
    assert copied_pairs(query, index, exclude={7}, config=config) == []


def test_pairs_failing_the_rules_but_sharing_enough_are_edge_pairs():
    index = MemoryIndex()
    index.add(7, document({1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10}))
    query = document({1, 2, 3, 4}, {5, 6, 50, 51, 52, 53, 54, 55}, {9, 99})
    config = dataclasses.replace(
        DEFAULT_CONFIG, sentence_threshold=0.3, min_shared=2, extension_threshold=0.25
    )
    assert copied_pairs(query, index, config=config) == [
        SentencePair(7, 0, 0, 1.0),
        # 2 of 10 features (0.2) is below the extension threshold too; 1 of 3 is not
        SentencePair(7, 2, 2, 1 / 3, strong=False, edge=True),
    ]


def pair(q, s, score=1.0):
    return SentencePair(1, q, s, score)


def test_clusters_tolerate_small_gaps_and_local_reordering():
    config = dataclasses.replace(DEFAULT_CONFIG, max_gap=2, source_window=3)
    pairs = [pair(0, 10), pair(1, 12), pair(2, 11), pair(5, 13), pair(9, 14)]
    clusters = cluster_pairs(pairs, config)
    assert [sorted(p.query for p in c.pairs) for c in clusters] == [[0, 1, 2, 5], [9]]


def test_clusters_do_not_jump_far_in_the_source():
    config = dataclasses.replace(DEFAULT_CONFIG, max_gap=2, source_window=3)
    clusters = cluster_pairs([pair(0, 10), pair(1, 11), pair(2, 40)], config)
    assert len(clusters) == 2


def test_a_cluster_is_split_where_source_sentences_are_skipped():
    config = dataclasses.replace(DEFAULT_CONFIG, max_source_gap=1, source_window=6)
    (cluster,) = cluster_pairs([pair(0, 5), pair(1, 6), pair(2, 1), pair(3, 2)], config)
    groups = split_at_source_gaps(cluster, config)
    assert sorted(sorted(p.source for p in g) for g in groups) == [[1, 2], [5, 6]]


def spans_of(n, length=10):
    return {i: (i * length, (i + 1) * length) for i in range(n)}


def test_align_turns_runs_into_passages_with_character_ranges():
    query = document(*[{i} for i in range(10)]).sentences
    pairs = [pair(2, 5, 0.8), pair(3, 6, 0.6), pair(4, 7, 1.0)]
    (alignment,) = align(1, pairs, query, spans_of(20), DEFAULT_CONFIG)
    passage = alignment.passage
    assert (passage.start, passage.end, passage.source_start, passage.source_end) == (
        20,
        50,
        50,
        80,
    )
    assert passage.score == pytest.approx(0.8)
    assert alignment.query_head.own == (20, 30) and alignment.query_head.partner == (50, 60)


def test_one_short_sentence_is_not_a_passage_but_a_long_close_one_is():
    config = dataclasses.replace(DEFAULT_CONFIG, min_single_chars=25, min_single_mass=20)
    short = document({1}, length=10).sentences
    assert align(1, [pair(0, 0)], short, spans_of(1), config) == []
    long = document({1}, length=40).sentences
    assert len(align(1, [pair(0, 0, 0.9)], long, spans_of(1, 40), config)) == 1
    assert align(1, [pair(0, 0, 0.3)], long, spans_of(1, 40), config) == []


def edge(q, s, score=0.15):
    return SentencePair(1, q, s, score, strong=False, edge=True)


def borders(alignment):
    p = alignment.passage
    return p.start, p.end, p.source_start, p.source_end


def test_edge_pairs_extend_a_passage_at_both_ends():
    query = document(*[{i} for i in range(10)]).sentences
    pairs = [pair(3, 5), pair(4, 6), edge(5, 7), edge(7, 8), edge(2, 4), edge(1, 3)]
    config = dataclasses.replace(DEFAULT_CONFIG, extension_gap=1)
    (alignment,) = align(1, pairs, query, spans_of(20), config)
    # 5 → 7 follows at once, 7 → 8 after one unpaired query sentence; 2 → 4 and 1 → 3 before
    assert borders(alignment) == (10, 80, 30, 90)
    assert alignment.strength == 2 and alignment.passage.score == 1.0  # the copied pairs'
    assert alignment.core is not None and borders(alignment.core) == (30, 50, 50, 70)
    assert alignment.query_tail.own == (70, 80) and alignment.source_tail.own == (80, 90)
    assert alignment.query_head.own == (10, 20) and alignment.source_head.own == (30, 40)


def test_edge_pairs_only_continue_a_passage_nearby_and_in_order():
    query = document(*[{i} for i in range(12)]).sentences
    config = dataclasses.replace(DEFAULT_CONFIG, extension_gap=1, max_source_gap=1)
    core = [pair(3, 5), pair(4, 6)]
    for far in (edge(7, 7), edge(5, 9), edge(5, 2), edge(0, 4)):  # query gap 2, source jumps
        (alignment,) = align(1, [*core, far], query, spans_of(20), config)
        assert borders(alignment) == (30, 50, 50, 70) and alignment.core is None
    assert align(1, [edge(3, 5), edge(4, 6), edge(5, 7)], query, spans_of(20), config) == []


def test_a_sentence_copied_elsewhere_in_the_source_is_no_edge():
    """Query sentence 5 has a copied pair of its own (source sentence 15): it belongs there,
    not to the end of the passage before it."""
    query = document(*[{i} for i in range(12)]).sentences
    pairs = [pair(3, 5), pair(4, 6), pair(5, 15), edge(5, 7)]
    alignments = align(1, pairs, query, spans_of(20), DEFAULT_CONFIG)
    assert [borders(a) for a in alignments] == [(30, 50, 50, 70)]
    without = align(1, [pair(3, 5), pair(4, 6), edge(5, 7)], query, spans_of(20), DEFAULT_CONFIG)
    assert [borders(a) for a in without] == [(30, 60, 50, 80)]


def test_a_passage_is_not_extended_without_an_extension_threshold():
    """copied_pairs makes no edge pairs then; align itself takes the pairs it is given."""
    index = MemoryIndex()
    index.add(1, document({1, 2}, {3, 4}, {5, 6, 7, 8, 9}))
    query = document({1, 2}, {3, 4}, {5, 10, 11, 12, 13})  # 1 of 9 shared: Jaccard 0.11
    with_edges = copied_pairs(query, index, config=DEFAULT_CONFIG)
    assert [p.edge for p in with_edges] == [False, False, True]
    config = dataclasses.replace(DEFAULT_CONFIG, extension_threshold=None)
    assert [p.edge for p in copied_pairs(query, index, config=config)] == [False, False]


def test_a_query_run_copied_from_two_places_keeps_the_stronger():
    query = document(*[{i} for i in range(10)]).sentences
    pairs = [pair(0, 1), pair(1, 2), pair(2, 3), pair(1, 30), pair(2, 31)]
    config = dataclasses.replace(DEFAULT_CONFIG, source_window=2)
    passages = [a.passage for a in align(1, pairs, query, spans_of(40), config)]
    assert [(p.source_start, p.source_end) for p in passages] == [(10, 40)]


@given(
    st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), st.floats(0.3, 1.0)), max_size=40)
)
def test_passages_stay_inside_the_documents_and_do_not_overlap_in_the_query(raw):
    query = document(*[{i} for i in range(31)]).sentences
    pairs = [pair(q, s, score) for q, s, score in raw]
    passages = [a.passage for a in align(1, pairs, query, spans_of(31), DEFAULT_CONFIG)]
    for p in passages:
        assert 0 <= p.start < p.end <= 310 and 0 <= p.source_start < p.source_end <= 310
        assert 0.3 <= p.score <= 1.0
    ordered = sorted(passages, key=lambda p: p.start)
    assert all(a.end <= b.start for a, b in zip(ordered, ordered[1:], strict=False))


@given(st.integers(1, 50), st.integers(1, 50), st.integers(0, 50))
def test_similarities_are_bounded_and_ordered(size_a, size_b, shared):
    shared = min(shared, size_a, size_b)
    jaccard = similarity(shared, size_a, size_b, "jaccard")
    overlap = similarity(shared, size_a, size_b, "overlap")
    assert 0.0 <= jaccard <= overlap <= 1.0
    assert jaccard == similarity(shared, size_b, size_a, "jaccard")
    assert (jaccard == 1.0) == (shared == size_a == size_b)


@given(st.sets(st.integers(0, 40), min_size=2, max_size=15), st.integers(0, 40))
def test_a_sentence_always_pairs_with_its_identical_copy(features, noise):
    index = MemoryIndex()
    index.add(3, document(features, {noise + 100, noise + 101}))
    pairs = copied_pairs(document(features), index, config=DEFAULT_CONFIG)
    assert SentencePair(3, 0, 0, 1.0) in pairs


def test_references_round_trip_and_refuse_what_their_fields_cannot_hold():
    documents, sentences = [0, 5, MAX_DOCUMENT_ID], [0, MAX_SENTENCES - 1, 17]
    refs = pack_refs(documents, sentences, [1, MAX_SIZE + 100, 3])
    assert [r.tolist() for r in unpack_refs(refs)] == [documents, sentences, [1, MAX_SIZE, 3]]
    assert (refs >= 0).all() and refs.tolist() == sorted(refs.tolist())  # by document, sentence
    with pytest.raises(DetectionError, match="document ids"):
        pack_refs([MAX_DOCUMENT_ID + 1], [0], [1])
    with pytest.raises(DetectionError, match="sentences cannot be indexed"):
        pack_refs([1], [MAX_SENTENCES], [1])


def reference_pairs(analysis, index, exclude, config):
    """copied_pairs as the definition reads: per query sentence, count the shared features of
    every source sentence, keep the pairs that score."""
    limit = config.max_sentence_df or float("inf")
    in_query = Counter(f for sentence in analysis.sentences for f in sentence.features)
    features = {f for f, sentences in in_query.items() if sentences <= limit}
    by_feature = defaultdict(list)
    max_df = config.max_df(index.document_count())
    for feature, doc, source, size in index.postings(features, max_df=max_df):
        if doc not in exclude:
            by_feature[feature].append((doc, source, size))
    for postings in by_feature.values():  # the feature's sentences in each document
        in_document = Counter(doc for doc, _, _ in postings)
        postings[:] = [p for p in postings if in_document[p[0]] <= limit]
    pairs = []
    for sentence in analysis.sentences:
        counts = Counter()
        for feature in set(sentence.features) & features:
            counts.update(by_feature.get(feature, ()))
        size = len(sentence.features)
        for (doc, source, source_size), shared in counts.items():
            jaccard = similarity(shared, size, source_size, "jaccard")
            edge = SentencePair(doc, sentence.index, source, jaccard, False, True)
            extends = config.extension_threshold is not None
            extends = extends and jaccard >= config.extension_threshold
            if not (shared >= config.min_shared or shared == size == source_size):
                pairs.extend([edge] if extends else [])
                continue
            score = similarity(shared, size, source_size, config.similarity)
            smaller = min(size, source_size)
            if score < config.sentence_threshold:
                if (
                    smaller < config.containment_min_features
                    or shared / smaller < config.containment_threshold
                ):
                    pairs.extend([edge] if extends else [])
                    continue
                score = config.sentence_threshold
            strong = shared >= config.min_shared  # not only a shared one-feature opening
            pairs.append(SentencePair(doc, sentence.index, source, score, strong))
    return sorted(pairs, key=lambda p: (p.query, p.document, p.source))


feature_sets = st.lists(st.sets(st.integers(0, 30), max_size=9), min_size=1, max_size=6)


@given(
    st.lists(feature_sets, min_size=1, max_size=4),
    feature_sets,
    st.sampled_from(["overlap", "jaccard", "containment"]),
    st.sampled_from([0.2, 0.25, 0.5, 1.0]),
    st.integers(1, 3),
    st.booleans(),
    st.sampled_from([None, 1, 2, 3]),
    st.sampled_from([None, 0.1, 0.3]),
)
def test_copied_pairs_agree_with_the_per_sentence_definition(
    sources, query, measure, threshold, min_shared, exclude_first, max_sentence_df, extension
):
    config = dataclasses.replace(
        DEFAULT_CONFIG, similarity=measure, sentence_threshold=threshold, min_shared=min_shared,
        containment_min_features=3, max_df_floor=2, max_df_fraction=0.0,
        max_sentence_df=max_sentence_df, extension_threshold=extension,
    )  # fmt: skip
    index = MemoryIndex()
    for number, sets in enumerate(sources):
        index.add(number + 1, document(*sets))
    exclude = {1} if exclude_first else set()
    analysis = document(*query)
    assert copied_pairs(analysis, index, exclude=exclude, config=config) == reference_pairs(
        analysis, index, exclude, config
    )


def test_sentences_beyond_the_size_field_score_at_most_one():
    giant = set(range(MAX_SIZE + 1_000))
    index = MemoryIndex()
    index.add(1, document(giant))
    for measure in ("overlap", "jaccard", "containment"):
        config = dataclasses.replace(DEFAULT_CONFIG, similarity=measure)
        assert copied_pairs(document(giant), index, config=config) == [SentencePair(1, 0, 0, 1.0)]


def test_the_memory_index_refuses_ids_a_reference_cannot_hold_and_stays_unchanged():
    index = MemoryIndex()
    index.add(1, document({1, 2}))
    for bad in (-1, MAX_DOCUMENT_ID + 1):
        with pytest.raises(DetectionError, match="document ids"):
            index.add(bad, document({1, 2}))
    assert index.document_count() == 1
    assert list(index.postings({1}, max_df=None)) == [Posting(1, 1, 0, 2)]


def test_shared_features_weigh_by_how_few_documents_hold_them():
    index = MemoryIndex()
    # Feature 5 is in all three sources (idf 0), features 1 and 6 in one each (idf log 3).
    index.add(1, document({1, 5, 40}))
    index.add(2, document({5, 6, 41}))
    index.add(3, document({5, 42}))
    match = match_query(document({1, 5, 6}), index, config=DEFAULT_CONFIG)
    assert match.shared_features == {1: 2, 2: 2, 3: 1}
    assert match.shared_weights == pytest.approx({1: math.log(3), 2: math.log(3), 3: 0.0})
    assert match_query(document({1, 5, 6}), index, config=DEFAULT_CONFIG, count=False)[1:] == (
        {},
        {},
    )


def test_the_shared_features_of_each_source_are_counted_once():
    index = MemoryIndex()
    # Source 1 holds features 1-3 in two sentences (3 twice); source 2 holds feature 9 only.
    index.add(1, document({1, 2, 3}, {3, 50, 51}))
    index.add(2, document({9, 60}))
    match = match_query(document({1, 2}, {3, 70}, {9, 80}), index, config=DEFAULT_CONFIG)
    assert match.shared_features == {1: 3, 2: 1}
    assert match.pairs == copied_pairs(
        document({1, 2}, {3, 70}, {9, 80}), index, config=DEFAULT_CONFIG
    )
