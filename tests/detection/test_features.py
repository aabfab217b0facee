"""Low-IDF-Sig features: chains, antecedents, stable hashing, model version."""

import dataclasses
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from detection import DEFAULT_CONFIG, analyze
from detection.features import FeatureModel, chains, feature_model, hash_chain, sentence_features
from detection.vocabulary import document_features
from detection.words import tokenize

SEED_SENTENCE = (
    "As we are taking your candidature ahead we would like to highlight that INTEL as an "
    "organization believes and practices high standards of ethical behavior from every "
    "potential candidate."
)


def seed_model(skip=frozenset(), c=2, d=1):
    base = feature_model(DEFAULT_CONFIG)
    return dataclasses.replace(
        base,
        antecedents=frozenset({"as", "to", "that", "of", "from"}),
        skip=frozenset(skip),
        chain_length=c,
        chain_gap=d,
    )


def words(text):
    return [t.text.lower() for t in tokenize(text)]


def test_it_reproduces_the_seed_example():
    found = {":".join(chain) for chain in chains(words(SEED_SENTENCE), seed_model())}
    assert found == {
        "as:we:are",
        "to:highlight:that",
        "that:intel:as",
        "as:an:organization",
        "of:ethical:behavior",
        "from:every:potential",
    }


def test_the_first_word_is_always_an_antecedent():
    model = seed_model()
    assert chains(["quick", "brown", "fox", "jumps"], model) == [("quick", "brown", "fox")]
    assert chains(["hello"], model) == [("hello",)]
    assert len(sentence_features(["hello"], model)) == 1


def test_chains_step_by_the_gap_and_skip_only_the_skip_words():
    model = seed_model(skip={"the"}, c=2, d=2)
    sentence = ["x", "to", "the", "a", "b", "c", "d"]
    assert ("to", "b", "d") in chains(sentence, model)
    assert ("x", "a", "c") in chains(sentence, model)


def test_chains_are_cut_at_the_sentence_end():
    model = seed_model()
    assert chains(["x", "y", "of", "z"], model) == [("x", "y", "of"), ("of", "z")]
    assert chains(["x", "y", "z", "of"], model) == [("x", "y", "z")]


def test_dropped_particles_do_not_change_chinese_features():
    model = feature_model(DEFAULT_CONFIG)
    with_particle = words("我们看到了中国的发展")
    without = [w for w in with_particle if w not in {"了", "的"}]
    assert sentence_features(with_particle, model) == sentence_features(without, model)


def test_features_are_sorted_unique_signed_64_bit():
    analysis = analyze("这是一个测试句子。我们在北京看到了中国的发展！" + SEED_SENTENCE)
    for sentence in analysis.sentences:
        assert list(sentence.features) == sorted(set(sentence.features))
        assert all(-(2**63) <= f < 2**63 for f in sentence.features)
        assert sentence.features


def test_hashes_are_identical_in_another_process():
    model = feature_model(DEFAULT_CONFIG)
    here = hash_chain(("as", "we", "are"), model)
    code = (
        "from detection import DEFAULT_CONFIG\n"
        "from detection.features import feature_model, hash_chain\n"
        "print(hash_chain(('as', 'we', 'are'), feature_model(DEFAULT_CONFIG)))\n"
    )
    other = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "123", "PATH": ""},
        cwd=Path(__file__).parents[2],
    )
    assert int(other.stdout.strip()) == here


def test_chain_hash_depends_on_word_order_and_seed():
    three_words = dataclasses.replace(DEFAULT_CONFIG, chain_length=2)  # chains of up to three
    model = feature_model(three_words)
    other_seed = feature_model(dataclasses.replace(three_words, hash_seed="other"))
    assert hash_chain(("a", "b", "c"), model) != hash_chain(("c", "b", "a"), model)
    assert hash_chain(("a", "b", "c"), model) != hash_chain(("a", "b", "c"), other_seed)
    assert hash_chain(("a", "b"), model) != hash_chain(("a", "b", "c"), model)


def test_model_version_changes_with_every_feature_parameter():
    versions = {
        feature_model(dataclasses.replace(DEFAULT_CONFIG, **change)).version
        for change in (
            {},
            {"chain_length": 3},
            {"chain_gap": 2},
            {"antecedents": 10},
            {"hash_seed": "x"},
            {"max_sentence_chars": 100},
            {"han_chain_length": 2},
            {"english_splitter": "punkt-rules"},
        )
    }
    assert len(versions) == 8
    detection_only = dataclasses.replace(DEFAULT_CONFIG, sentence_threshold=0.9, max_gap=0)
    assert feature_model(detection_only).version == feature_model(DEFAULT_CONFIG).version


def test_feature_model_is_a_frozen_value():
    model = feature_model(DEFAULT_CONFIG)
    assert isinstance(model, FeatureModel)
    assert "的" in model.skip and "the" in model.skip
    assert "的" not in model.antecedents and "是" in model.antecedents


def test_chinese_antecedents_use_the_han_chain_length():
    model = dataclasses.replace(seed_model(c=2), antecedents=frozenset({"我们", "of"}))
    model = dataclasses.replace(model, han_chain_length=1)
    assert chains(["x", "我们", "看到", "发展", "of", "a", "b"], model) == [
        ("x", "我们", "看到"),
        ("我们", "看到"),
        ("of", "a", "b"),
    ]


WORDS = st.sampled_from(
    ["的", "了", "我们", "中国", "发展", "是", "在", "the", "a", "of", "to", "cat", "x", "3.14"]
)


@given(st.lists(st.lists(WORDS, min_size=1, max_size=12), min_size=1, max_size=6))
def test_the_whole_document_path_equals_the_per_sentence_definition(sentences):
    model = feature_model(DEFAULT_CONFIG)
    words = [w for sentence in sentences for w in sentence]
    bounds = []
    first = 0
    for sentence in sentences:
        bounds.append((first, first + len(sentence)))
        first += len(sentence)
    expected = [sentence_features(sentence, model) for sentence in sentences]
    assert document_features(words, bounds, model) == expected


@given(
    st.lists(
        st.tuples(st.lists(WORDS, max_size=3), st.lists(WORDS, min_size=1, max_size=12)),
        min_size=1,
        max_size=6,
    ),
    st.lists(WORDS, max_size=3),
)
def test_words_outside_the_sentences_are_ignored(gaps_and_sentences, tail):
    model = feature_model(DEFAULT_CONFIG)
    words: list[str] = []
    bounds = []
    for gap, sentence in gaps_and_sentences:
        words += gap
        bounds.append((len(words), len(words) + len(sentence)))
        words += sentence
    words += tail
    expected = [sentence_features(sentence, model) for _, sentence in gaps_and_sentences]
    assert document_features(words, bounds, model) == expected
