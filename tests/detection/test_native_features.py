"""The C extension of the feature extraction (detection/_lisfeatures.c) gives exactly what the
numpy path gives, and is built wherever the tests run (so CI proves the fast path is used)."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import threading

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from detection import vocabulary
from detection.config import DEFAULT_CONFIG
from detection.features import feature_model, sentence_features
from detection.vocabulary import _document_features

# Set to 1 only where the extension cannot be built: the numpy fallback is then accepted.
ALLOW_FALLBACK = "DETECTION_ALLOW_NUMPY_FALLBACK"

native = pytest.mark.skipif(not vocabulary.NATIVE, reason="detection._lisfeatures not built")


def test_the_native_feature_path_is_built_and_used():
    if os.environ.get(ALLOW_FALLBACK) == "1":
        pytest.skip(f"{ALLOW_FALLBACK}=1: the numpy fallback is accepted")
    assert vocabulary.NATIVE, (
        "detection._lisfeatures is not importable: build it with "
        ".venv/bin/python setup.py build_ext --inplace (scripts/setup.sh does), or set "
        f"{ALLOW_FALLBACK}=1 to accept the slower numpy path"
    )
    assert vocabulary._vocabulary(feature_model(DEFAULT_CONFIG)).table is not None


MODEL = feature_model(DEFAULT_CONFIG)
SKIP = sorted(MODEL.skip)[:3]
ANTECEDENTS = sorted(MODEL.antecedents - MODEL.skip)[:4]
HAN = ["中国", "发展", "语言", "𠀀字", "豈"]  # BMP and supplementary (4-byte kind) Han words
OTHER = [
    "cat",
    "x",
    "3.14",
    "naïve",  # 1-byte kind beyond ASCII
    "ā",  # 2-byte kind
    "internationalisation",  # longer than the table's 16 inline bytes
    "中文中文中文中文中文",  # 2-byte kind, 20 bytes
    "䷀",  # U+4DC0: Han by the numpy flag test (not by features._HAN)
]
POOL = SKIP + ANTECEDENTS + HAN + OTHER
WORD = st.one_of(
    st.sampled_from(POOL),
    st.text(min_size=1, max_size=20),  # anything, fresh words for the vocabulary
)
SENTENCE = st.one_of(
    st.lists(WORD, min_size=1, max_size=12),
    # A repeated phrase repeats chains: the duplicates must be dropped.
    st.tuples(st.lists(WORD, min_size=1, max_size=3), st.integers(2, 4)).map(
        lambda phrase: phrase[0] * phrase[1]
    ),
)


@st.composite
def documents(draw):
    """Words and bounds: non-empty, increasing, disjoint ranges, sometimes with words between
    or after them that belong to no sentence (the general path of the numpy code)."""
    sentences = draw(st.lists(SENTENCE, max_size=6))
    gaps = draw(st.lists(st.integers(0, 2), min_size=len(sentences) + 1, max_size=7))
    words: list[str] = []
    bounds: list[tuple[int, int]] = []
    filler = draw(st.lists(WORD, min_size=20, max_size=20))
    for sentence, gap in zip(sentences, gaps, strict=False):
        words.extend(filler[:gap])
        bounds.append((len(words), len(words) + len(sentence)))
        words.extend(sentence)
    words.extend(filler[: gaps[-1]])
    return words, bounds


def model_for(c: int, han: int, d: int):
    return feature_model(
        dataclasses.replace(DEFAULT_CONFIG, chain_length=c, han_chain_length=han, chain_gap=d)
    )


@native
@given(documents(), st.integers(0, 3), st.integers(0, 3), st.integers(1, 3), st.booleans())
def test_native_and_numpy_paths_give_the_same_features(document, c, han, d, numpy_first):
    words, bounds = document
    model = model_for(c, han, d)
    order = (False, True) if numpy_first else (True, False)  # either path meets new words
    first, second = (_document_features(words, bounds, model, path) for path in order)
    assert first == second
    assert all(type(value) is int for sentence in first for value in sentence)
    # And both are the definition, sentence by sentence (U+4DC0 aside, see OTHER).
    if "䷀" not in words:
        assert first == [sentence_features(words[a:b], model) for a, b in bounds]


@native
def test_all_skip_single_word_and_empty_inputs():
    model = model_for(2, 1, 1)
    cases = [
        ([], []),
        (["cat"], []),
        (["cat"], [(0, 1)]),
        (SKIP[:1], [(0, 1)]),
        ([*SKIP, "cat", *SKIP], [(0, 3), (3, 4), (4, 7)]),
        ([ANTECEDENTS[0], "中国", ANTECEDENTS[0]], [(0, 3)]),
        ([ANTECEDENTS[0], "cat"] * 4, [(0, 8)]),  # the same chain three times
    ]
    for words, bounds in cases:
        expected = [sentence_features(words[a:b], model) for a, b in bounds]
        assert _document_features(words, bounds, model, True) == expected
        assert _document_features(words, bounds, model, False) == expected


@native
def test_threads_extracting_at_once_agree_with_the_definition():
    # A model of its own: a fresh vocabulary that the threads fill together.
    model = feature_model(dataclasses.replace(DEFAULT_CONFIG, hash_seed="native-threads"))
    rng = np.random.default_rng(7)
    shared = [f"w{i}" for i in range(2_000)] + HAN + SKIP + ANTECEDENTS
    docs = []
    for _ in range(24):
        words = [shared[i] for i in rng.integers(0, len(shared), 3_000)]
        cuts = sorted({0, len(words), *rng.integers(1, len(words), 150).tolist()})
        docs.append((words, list(zip(cuts, cuts[1:], strict=False))))
    expected = [[sentence_features(w[a:b], model) for a, b in bounds] for w, bounds in docs]
    results: dict[tuple[int, int], list[tuple[int, ...]]] = {}
    barrier = threading.Barrier(4)

    def work(thread: int) -> None:
        barrier.wait()
        for number in range(len(docs)):
            number = (number + 6 * thread) % len(docs)
            words, bounds = docs[number]
            results[thread, number] = vocabulary.document_features(words, bounds, model)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 4 * len(docs)
    assert all(results[key] == expected[key[1]] for key in results)
    known = vocabulary._vocabulary(model)
    assert len(known.table) == len(known) == len(set(shared))
    assert not known.ids  # the native path keeps word -> id in the table only


@native
def test_the_table_finds_what_was_added_and_only_that():
    from detection._lisfeatures import Table

    table = Table()
    words = [f"word{i}" for i in range(5_000)] + ["é", "ā", "𠀀", "a" * 40, "中" * 9]
    table.add(words, 10)
    assert len(table) == len(words)
    probe = [w.encode().decode() for w in words]  # equal strings, other objects
    probe += ["wordx", "e", "a" * 39, "中" * 8, "A"]
    out = np.empty(len(probe), dtype=np.int64)
    assert table.lookup(probe, out) == 5
    assert out[: len(words)].tolist() == list(range(10, 10 + len(words)))
    assert (out[len(words) :] == -1).all()
    # Same length, other kind: "ÿ" (1 byte) and "ÿ"+U+0100 are told apart by their bytes.
    table.add(["ÿ", "ÿĀ"], 0)
    out = np.empty(2, dtype=np.int64)
    assert table.lookup(["ÿ", "ÿĀ"], out) == 0 and out.tolist() == [0, 1]


@native
def test_the_extension_refuses_what_it_cannot_handle():
    from detection import _lisfeatures

    table = _lisfeatures.Table()
    with pytest.raises(TypeError):
        table.lookup([b"bytes"], np.empty(1, dtype=np.int64))
    with pytest.raises(TypeError):
        table.lookup(["a"], np.empty(1, dtype=np.float64))
    with pytest.raises(ValueError):
        table.lookup(["a", "b"], np.empty(1, dtype=np.int64))
    hashes = np.zeros(4, dtype=np.uint64)
    flags = np.zeros(4, dtype=np.uint8)
    ids = np.array([0, 1, 9], dtype=np.int64)
    # chains of up to three words (chain_length 2, as passed below)
    multipliers = feature_model(dataclasses.replace(DEFAULT_CONFIG, chain_length=2)).multipliers
    with pytest.raises(IndexError):  # id 9 beyond the arrays
        _lisfeatures.features(ids, [(0, 3)], hashes, flags, multipliers, 2, 1, 1)
    with pytest.raises(ValueError):  # bound beyond the words
        _lisfeatures.features(ids, [(0, 4)], hashes, flags, multipliers, 2, 1, 1)
    with pytest.raises(ValueError):  # too few multipliers for the chain length
        _lisfeatures.features(ids, [(0, 2)], hashes, flags, multipliers[:2], 2, 1, 1)
    with pytest.raises(ValueError):
        _lisfeatures.features(ids, [(0, 2)], hashes, flags, multipliers, 2, 1, 0)
    with pytest.raises(ValueError):
        _lisfeatures.features(ids, [(0, 1, 2)], hashes, flags, multipliers, 2, 1, 1)
    assert _lisfeatures.features(ids, [(0, 2)], hashes, flags, multipliers, 2, 1, 1) == [(0,)]
    # Any pair of integers is a bound, as for the numpy path.
    assert _lisfeatures.features(ids, [[0, np.int64(2)]], hashes, flags, multipliers, 2, 1, 1) == [
        (0,)
    ]


# Words for the C blake2b: any Unicode (no lone surrogates, which UTF-8 cannot encode), from
# empty to several 128-byte blocks, ASCII, 2- and 3-byte and astral (4-byte) characters.
HASHED = st.one_of(
    st.text(max_size=5),
    st.text(st.characters(codec="utf-8"), max_size=200),
    st.text(st.sampled_from("aé中𠀀😀"), min_size=25, max_size=140),
    st.integers(0, 400).map(lambda n: "x" * n),
)


def hashlib_hash(word: str, key: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8, key=key).digest(), "big")


@native
@given(HASHED, st.one_of(st.just(MODEL.key), st.binary(max_size=64)))
def test_the_c_blake2b_is_hashlibs(word, key):
    from detection import _lisfeatures

    assert _lisfeatures.word_hash(word, key) == hashlib_hash(word, key)


@native
def test_the_c_blake2b_at_block_boundaries():
    from detection import _lisfeatures

    key = MODEL.key
    for n in (0, 1, 127, 128, 129, 255, 256, 257, 1000):
        for word in ("a" * n, "é" * n, "𠀀" * (n // 4 + 1)):
            assert _lisfeatures.word_hash(word, key) == hashlib_hash(word, key)
            assert _lisfeatures.word_hash(word, b"") == hashlib_hash(word, b"")
            assert _lisfeatures.word_hash(word, b"k" * 64) == hashlib_hash(word, b"k" * 64)
    with pytest.raises(ValueError):
        _lisfeatures.word_hash("a", b"k" * 65)
    with pytest.raises(TypeError):
        _lisfeatures.word_hash("a", "key")
    with pytest.raises(UnicodeEncodeError):
        _lisfeatures.word_hash("\ud800", key)


@native
@given(st.lists(st.one_of(st.sampled_from([*POOL, ""]), HASHED), max_size=40), st.data())
def test_add_new_hashes_and_flags_like_the_python_path(words, data):
    from detection import _lisfeatures

    table = _lisfeatures.Table()
    known = sorted(set(data.draw(st.lists(st.sampled_from(words), max_size=5)) if words else []))
    table.add(known, 0)
    ids = np.full(len(words), -1, dtype=np.int64)
    assert table.lookup(words, ids) == sum(word not in known for word in words)
    hashes = np.zeros(len(known) + len(words), dtype=np.uint64)
    flags = np.full(len(known) + len(words), 255, dtype=np.uint8)
    before = ids.copy()
    args = (hashes, flags, MODEL.key, MODEL.skip, MODEL.antecedents)
    added = table.add_new(words, ids, len(known), *args)
    new = list(dict.fromkeys(word for word in words if word not in known))
    assert added == len(new) and len(table) == len(known) + len(new)
    expected_ids = {word: i for i, word in enumerate(known)}
    expected_ids.update((word, len(known) + i) for i, word in enumerate(new))
    assert ids.tolist() == [expected_ids[word] for word in words]
    assert (ids[before >= 0] == before[before >= 0]).all()  # found ids untouched
    python = vocabulary._Vocabulary(MODEL)
    for word, flag in zip(new, python._flags(new), strict=True):
        assert int(hashes[expected_ids[word]]) == hashlib_hash(word, MODEL.key)
        assert flags[expected_ids[word]] == flag
    assert (flags[: len(known)] == 255).all()  # known words: nothing written
    # Now every word is known: nothing more to add.
    assert table.add_new(words, ids, len(known) + added, *args) == 0


@native
def test_add_new_refuses_before_adding_anything():
    from detection import _lisfeatures

    table = _lisfeatures.Table()
    words = ["a", "b", "a", "c"]
    ids = np.full(4, -1, dtype=np.int64)
    small = np.zeros(3, dtype=np.uint64), np.zeros(3, dtype=np.uint8)
    with pytest.raises(ValueError):  # room for 3 ids, 4 may be needed
        table.add_new(words, ids, 0, *small, MODEL.key, MODEL.skip, MODEL.antecedents)
    assert len(table) == 0 and (ids == -1).all()
    hashes, flags = np.zeros(8, dtype=np.uint64), np.zeros(8, dtype=np.uint8)
    with pytest.raises(TypeError):
        table.add_new(words, ids, 0, hashes, flags, MODEL.key, list(MODEL.skip), MODEL.antecedents)
    with pytest.raises(TypeError):
        table.add_new(words, ids, 0, flags, hashes, MODEL.key, MODEL.skip, MODEL.antecedents)
    with pytest.raises(ValueError):
        table.add_new(words, ids[:3], 0, hashes, flags, MODEL.key, MODEL.skip, MODEL.antecedents)
    with pytest.raises(OverflowError):
        table.add_new(words, ids, -1, hashes, flags, MODEL.key, MODEL.skip, MODEL.antecedents)
    assert len(table) == 0
    assert (
        table.add_new(words, ids, 4, hashes, flags, MODEL.key, MODEL.skip, MODEL.antecedents) == 3
    )
    assert ids.tolist() == [4, 5, 4, 6]
