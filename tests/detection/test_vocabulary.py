"""The per-model vocabulary of the whole-document feature path (detection.vocabulary), on the
native path (new words hashed and flagged in C) and on the numpy fallback."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from detection import vocabulary as vocabulary_module
from detection.config import DEFAULT_CONFIG
from detection.features import _word_hash, feature_model
from detection.vocabulary import _ANTECEDENT, _HAN, _SKIP, _Vocabulary

PATHS = [
    pytest.param(
        True,
        id="native",
        marks=pytest.mark.skipif(
            not vocabulary_module.NATIVE, reason="detection._lisfeatures not built"
        ),
    ),
    pytest.param(False, id="numpy"),
]


@pytest.mark.parametrize("native", PATHS)
def test_new_words_get_their_keyed_hash_and_flags(native):
    model = feature_model(DEFAULT_CONFIG)
    skip, antecedent = sorted(model.skip)[0], sorted(model.antecedents - model.skip)[0]
    words = [skip, "中文", antecedent, "zebra-crossing", skip, "", "\uf900x", "𠀀"]
    vocabulary = _Vocabulary(model)
    ids = vocabulary.lookup(words, native).tolist()
    assert ids[0] == ids[4] and len(set(ids)) == 7 == len(vocabulary)
    for word, number in zip(words, ids, strict=True):
        assert int(vocabulary.hashes[number]) == _word_hash(word, model.key)
    assert vocabulary.flags[ids[0]] & _SKIP
    assert vocabulary.flags[ids[1]] == _HAN
    assert vocabulary.flags[ids[2]] & _ANTECEDENT
    assert vocabulary.flags[ids[3]] == 0
    assert vocabulary.flags[ids[5]] == 0  # the empty word: not Han
    assert vocabulary.flags[ids[6]] == _HAN
    assert vocabulary.flags[ids[7]] == 0  # astral Han: not Han by this test (features._HAN)
    assert vocabulary.lookup(words, native).tolist() == ids  # known now: the same ids


@pytest.mark.parametrize("native", PATHS)
def test_known_words_keep_their_ids_when_the_arrays_grow(native):
    vocabulary = _Vocabulary(feature_model(DEFAULT_CONFIG))
    first = vocabulary.lookup(["alpha", "beta"], native).tolist()
    many = [f"w{i}" for i in range(10_000)]  # more than the initial 4096 slots
    ids = vocabulary.lookup([*many, "beta", "alpha"], native).tolist()
    assert ids[-2:] == first[::-1]
    assert sorted(ids[:-2]) == list(range(2, 10_002))
    assert int(vocabulary.hashes[10_001]) == _word_hash("w9999", vocabulary.model.key)


@pytest.mark.parametrize("native", PATHS)
def test_threads_adding_the_same_words_agree_on_every_id(native):
    vocabulary = _Vocabulary(feature_model(DEFAULT_CONFIG))
    words = [f"t{i % 3000}" for i in range(20_000)]
    results: list[list[int]] = []
    barrier = threading.Barrier(4)

    def work(shift: int) -> None:
        barrier.wait()
        mine = words[shift:] + words[:shift]
        ids = vocabulary.lookup(mine, native).tolist()
        results.append(ids[-shift:] + ids[:-shift] if shift else ids)

    threads = [threading.Thread(target=work, args=(s,)) for s in (0, 7, 1500, 2999)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(vocabulary) == 3000
    assert all(ids == results[0] for ids in results)
    key = vocabulary.model.key
    assert sorted(set(results[0])) == list(range(3000))
    assert all(
        int(vocabulary.hashes[i]) == _word_hash(w, key)
        for w, i in zip(words, results[0], strict=True)
    )


@pytest.mark.parametrize("native", PATHS)
def test_a_full_vocabulary_is_replaced_by_a_fresh_one(native, monkeypatch):
    monkeypatch.setattr(vocabulary_module, "_LIMIT", 50)
    model = feature_model(dataclasses.replace(DEFAULT_CONFIG, hash_seed=f"limit-{native}"))
    words = [f"v{i}" for i in range(60)]
    bounds = [(0, 30), (30, 60)]
    expected = vocabulary_module._document_features(words, bounds, model, native)
    full = vocabulary_module._vocabularies[model]
    assert len(full) == 60  # a document is never cut: the limit is checked between them
    fresh = vocabulary_module._vocabulary(model)
    assert fresh is not full and len(fresh) == 0
    assert vocabulary_module._document_features(words, bounds, model, native) == expected
    assert len(fresh) == 60 and len(full) == 60
    vocabulary_module._vocabularies.pop(model)


@pytest.mark.skipif(not vocabulary_module.NATIVE, reason="detection._lisfeatures not built")
def test_a_word_that_cannot_be_hashed_leaves_the_vocabulary_consistent():
    vocabulary = _Vocabulary(feature_model(DEFAULT_CONFIG))
    with pytest.raises(UnicodeEncodeError):  # as str.encode("utf-8") on the numpy path
        vocabulary.lookup(["a", "b", "\ud800", "c"], True)
    ids = vocabulary.lookup(["c", "a", "b", "d"], True).tolist()
    key = vocabulary.model.key
    assert len(set(ids)) == 4 and all(0 <= i < len(vocabulary) for i in ids)
    assert [int(vocabulary.hashes[i]) for i in ids] == [_word_hash(w, key) for w in "cabd"]
