"""The public contract: analyze / detect / compare / coverage (docs/architecture.md)."""

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opencc import OpenCC

import detection
from detection import (
    DEFAULT_CONFIG,
    DetectionError,
    DetectorConfig,
    MemoryIndex,
    Passage,
    analyze,
    compare,
    coverage,
    detect,
)

SOURCE = (
    "国务院新闻办公室今天举行新闻发布会，介绍今年经济工作的主要安排。"
    "发言人说，今年要继续实施积极的财政政策，保持经济平稳较快发展。"
    "会议强调，要进一步扩大内需，促进消费和投资协调增长。"
    "与会专家认为，这些措施有利于稳定市场预期，增强企业发展信心。"
    "发言人还表示，将加大对中小企业的支持力度，改善融资环境。"
)
FOREIGN = (
    "昨天下午，市体育馆举行了一场精彩的篮球比赛，吸引了数千名观众。"
    "主队凭借出色的防守，最终以八十比七十二战胜客队。"
    "赛后，主教练表示球员们发挥了应有的水平，对结果感到满意。"
)
ENGLISH = (
    "The committee published its annual report on Monday morning. "
    "It describes how the water supply of the region was improved over the last decade. "
    "Engineers replaced most of the old pipes and built two new treatment plants. "
    "The report also warns that rainfall has become less predictable in recent years."
)


def test_the_public_api_is_exactly_the_contract():
    assert set(detection.__all__) == {
        "DetectorConfig",
        "DEFAULT_CONFIG",
        "analyze",
        "detect",
        "compare",
        "coverage",
        "model_version",
        "DocumentAnalysis",
        "SentenceRecord",
        "Posting",
        "Postings",
        "SentenceIndex",
        "pack_refs",
        "unpack_refs",
        "MemoryIndex",
        "Passage",
        "DetectionError",
    }


def test_analyze_keeps_offsets_into_the_original_text():
    text = "  第一句话在这里。\r\n\r\n Second sentence here.  "
    analysis = analyze(text)
    assert [text[s.start : s.end] for s in analysis.sentences] == [
        "第一句话在这里。",
        "Second sentence here.",
    ]
    assert [s.index for s in analysis.sentences] == [0, 1]
    assert analysis.language == "mixed"
    assert analysis.model_version == analyze("x").model_version


def test_analyze_rejects_bytes():
    with pytest.raises(DetectionError, match="str"):
        analyze(b"bytes")  # type: ignore[arg-type]


def test_compare_finds_a_verbatim_copy_with_its_borders():
    suspicious = FOREIGN + SOURCE[32:] + FOREIGN
    (passage,) = compare(suspicious, SOURCE)
    assert passage.source == 0
    assert suspicious[passage.start : passage.end] == SOURCE[32:]
    assert (passage.source_start, passage.source_end) == (32, len(SOURCE))


def test_compare_finds_a_traditional_full_width_copy():
    converted = OpenCC("s2t").convert(SOURCE).replace("，", ",")
    passages = compare(FOREIGN + "\n" + converted, SOURCE)
    assert len(passages) == 1
    assert passages[0].end - passages[0].start > 0.9 * len(converted)


def test_compare_finds_english_copies_inside_other_text():
    suspicious = "Some unrelated opening words about cooking pasta. " + ENGLISH
    (passage,) = compare(suspicious, ENGLISH)
    assert suspicious[passage.start : passage.end] == ENGLISH


def test_unrelated_texts_have_no_passages():
    assert compare(FOREIGN, SOURCE) == []
    assert compare(ENGLISH, SOURCE) == []


def test_detect_uses_the_index_and_excludes_the_query_itself():
    index = MemoryIndex()
    index.add(1, analyze(SOURCE))
    index.add(2, analyze(FOREIGN))
    query = analyze(FOREIGN + SOURCE)
    found = detect(query, index)
    assert {p.source for p in found} == {1, 2}
    assert {p.source for p in detect(query, index, exclude={2})} == {1}
    assert all(isinstance(p, Passage) for p in found)


def test_detect_refuses_features_of_another_model():
    index = MemoryIndex()
    index.add(1, analyze(SOURCE))
    other = dataclasses.replace(DEFAULT_CONFIG, chain_length=3)
    with pytest.raises(DetectionError, match="same DetectorConfig"):
        detect(analyze(SOURCE, other), index)


def test_coverage_counts_overlapping_passages_once():
    passages = [Passage(0, 0, 50, 0, 50, 1.0), Passage(1, 25, 75, 0, 50, 1.0)]
    assert coverage(100, passages) == pytest.approx(0.75)
    assert coverage(0, passages) == 0.0
    assert coverage(100, []) == 0.0


def test_config_validates_its_values():
    with pytest.raises(ValueError, match="chain_gap"):
        DetectorConfig(chain_gap=0)
    for bad in (0.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="extension_threshold"):
            DetectorConfig(extension_threshold=bad)
    with pytest.raises(ValueError, match="extension_gap"):
        DetectorConfig(extension_gap=-1)
    assert DetectorConfig(extension_threshold=None).extension_threshold is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_CONFIG.chain_length = 5  # type: ignore[misc]


SOURCE_SENTENCES = [s + "。" for s in SOURCE.split("。") if s]


@settings(max_examples=25, deadline=None)
@given(
    st.integers(0, len(SOURCE_SENTENCES) - 2),
    st.integers(2, len(SOURCE_SENTENCES)),
    st.sampled_from(["", "\n", "前言部分的内容与此无关。\n"]),
)
def test_a_verbatim_copy_of_whole_sentences_is_found_exactly(first, count, prefix):
    copied = "".join(SOURCE_SENTENCES[first : first + count])
    suspicious = FOREIGN + prefix + copied + "\n" + FOREIGN
    passages = compare(suspicious, SOURCE)
    assert len(passages) == 1
    (passage,) = passages
    assert suspicious[passage.start : passage.end] == copied
    assert SOURCE[passage.source_start : passage.source_end] == copied


def test_empty_and_punctuation_only_texts_have_no_sentences_or_passages():
    assert analyze("").sentences == ()
    assert analyze("。。。！！ ... \n\n").sentences == ()
    assert compare("", SOURCE) == []
    assert detect(analyze(SOURCE), MemoryIndex()) == []


def test_detect_refined_moves_sentence_borders_to_the_copied_words():
    from detection.detector import detect_refined

    half = ENGLISH.index("how the water")
    copied = ENGLISH[half:]
    suspicious = "Cooking pasta needs salt and time, " + copied
    index = MemoryIndex()
    index.add(5, analyze(ENGLISH))
    analysis = analyze(suspicious)
    (coarse,) = detect(analysis, index)
    (fine,) = detect_refined(suspicious, analysis, index, {5: ENGLISH}.__getitem__)
    assert coarse.start == 0  # the copy starts inside the query's first sentence
    assert suspicious[fine.start : fine.end] == copied
    assert ENGLISH[fine.source_start : fine.source_end] == copied


def test_model_version_names_the_model_analyze_stamps():
    from dataclasses import replace

    from detection import DEFAULT_CONFIG, model_version

    assert model_version() == analyze(ENGLISH).model_version
    other = replace(DEFAULT_CONFIG, chain_length=DEFAULT_CONFIG.chain_length + 1)
    assert model_version(other) == analyze(ENGLISH, other).model_version != model_version()


def test_warm_up_loads_both_splitters_a_worker_needs():
    """A worker process calls warm_up() at start (config/celery.py): the English splitter
    (NLTK's Punkt, imported on first use) must be loaded by it, not by the first document."""
    from detection import punkt
    from detection.detector import warm_up
    from detection.lexicon import english_synonyms

    punkt._tokenizer.cache_clear()
    english_synonyms.cache_clear()
    warm_up()
    assert punkt._tokenizer.cache_info().currsize == 1
    assert english_synonyms.cache_info().currsize == 1  # WordNet, for the disguised stage
