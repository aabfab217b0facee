"""The per-document sentence-frequency bound (``max_sentence_df``): a feature repeated in many
sentences of one document is ignored there, so repetitive texts make few candidate pairs."""

import dataclasses

import pytest

from detection import DEFAULT_CONFIG, DocumentAnalysis, MemoryIndex, SentenceRecord, analyze
from detection.config import DetectorConfig
from detection.features import feature_model
from detection.scoring import SentencePair, copied_pairs

VERSION = feature_model(DEFAULT_CONFIG).version
LIMITED = dataclasses.replace(DEFAULT_CONFIG, max_sentence_df=3)
UNLIMITED = dataclasses.replace(DEFAULT_CONFIG, max_sentence_df=None)


def document(*feature_sets):
    records = tuple(
        SentenceRecord(i, i * 10, (i + 1) * 10, tuple(sorted(f)))
        for i, f in enumerate(feature_sets)
    )
    return DocumentAnalysis("en", VERSION, records)


def indexed(**documents):
    index = MemoryIndex()
    for name, analysis in documents.items():
        index.add(int(name[1:]), analysis)
    return index


def test_a_feature_repeated_in_a_source_is_ignored_in_that_source_only():
    index = indexed(d1=document(*[{1, 2, 3}] * 4), d2=document({1, 2, 3}, {7, 8}))
    pairs = copied_pairs(document({1, 2, 3}), index, config=LIMITED)
    assert pairs == [SentencePair(2, 0, 0, 1.0)]
    unlimited = copied_pairs(document({1, 2, 3}), index, config=UNLIMITED)
    assert {(p.document, p.source) for p in unlimited} == {(1, 0), (1, 1), (1, 2), (1, 3), (2, 0)}


def test_a_feature_repeated_in_the_query_is_ignored_for_every_source():
    index = indexed(d1=document({1, 2, 3}))
    assert copied_pairs(document(*[{1, 2, 3}] * 4), index, config=LIMITED) == []
    assert len(copied_pairs(document(*[{1, 2, 3}] * 3), index, config=LIMITED)) == 3


def test_the_other_features_of_a_sentence_with_a_refrain_still_pair():
    # Feature 1 is everywhere in the source (a refrain); the copied sentence shares 2 and 3.
    source = document(*[{1, 10 + i, 20 + i} for i in range(5)], {1, 2, 3})
    pairs = copied_pairs(document({1, 2, 3}), indexed(d4=source), config=LIMITED)
    assert [(p.document, p.source) for p in pairs] == [(4, 5)]
    assert pairs[0].score == pytest.approx(2 / 4)  # the ignored feature still counts in the sizes


def test_a_text_pasted_many_times_makes_no_candidate_pairs_with_the_bound():
    block = (
        "The committee met on Monday to discuss the budget of the city. "
        "It decided that the money for the new library would be spent next year. "
        "Several members said that the roads needed repairs first. "
    )
    copies = DEFAULT_CONFIG.max_sentence_df + 1
    analysis = analyze(block * copies)
    index = MemoryIndex()
    index.add(1, analysis)
    assert copied_pairs(analysis, index, config=DEFAULT_CONFIG) == []
    # Without the bound every copy of a sentence pairs with every copy: copies² per sentence.
    assert len(copied_pairs(analysis, index, config=UNLIMITED)) >= 3 * copies**2


def test_texts_repeated_up_to_the_bound_still_pair_every_copy():
    block = "The committee met on Monday to discuss the budget of the city. " * 3
    analysis = analyze(block)
    index = MemoryIndex()
    index.add(1, analysis)
    assert len(copied_pairs(analysis, index, config=DEFAULT_CONFIG)) == 9


def test_the_bound_is_a_detection_setting_not_part_of_the_feature_model():
    assert feature_model(UNLIMITED).version == feature_model(DEFAULT_CONFIG).version
    with pytest.raises(ValueError, match="max_sentence_df"):
        DetectorConfig(max_sentence_df=0)
