"""The per-model vocabulary of the whole-document feature path (detection.vocabulary)."""

from __future__ import annotations

import threading

from detection.config import DEFAULT_CONFIG
from detection.features import _word_hash, feature_model
from detection.vocabulary import _ANTECEDENT, _HAN, _SKIP, _Vocabulary


def test_new_words_get_their_keyed_hash_and_flags():
    model = feature_model(DEFAULT_CONFIG)
    skip, antecedent = sorted(model.skip)[0], sorted(model.antecedents - model.skip)[0]
    words = [skip, "中文", antecedent, "zebra-crossing", skip]
    vocabulary = _Vocabulary(model)
    ids = vocabulary.lookup(words).tolist()
    assert ids[0] == ids[4] and len(set(ids)) == 4
    for word, number in zip(words, ids, strict=True):
        assert int(vocabulary.hashes[number]) == _word_hash(word, model.key)
    assert vocabulary.flags[ids[0]] & _SKIP
    assert vocabulary.flags[ids[1]] == _HAN
    assert vocabulary.flags[ids[2]] & _ANTECEDENT
    assert vocabulary.flags[ids[3]] == 0


def test_known_words_keep_their_ids_when_the_arrays_grow():
    vocabulary = _Vocabulary(feature_model(DEFAULT_CONFIG))
    first = vocabulary.lookup(["alpha", "beta"]).tolist()
    many = [f"w{i}" for i in range(10_000)]  # more than the initial 4096 slots
    ids = vocabulary.lookup([*many, "beta", "alpha"]).tolist()
    assert ids[-2:] == first[::-1]
    assert sorted(ids[:-2]) == list(range(2, 10_002))
    assert int(vocabulary.hashes[10_001]) == _word_hash("w9999", vocabulary.model.key)


def test_threads_adding_the_same_words_agree_on_every_id():
    vocabulary = _Vocabulary(feature_model(DEFAULT_CONFIG))
    words = [f"t{i % 3000}" for i in range(20_000)]
    results: list[list[int]] = []
    barrier = threading.Barrier(4)

    def work(shift: int) -> None:
        barrier.wait()
        mine = words[shift:] + words[:shift]
        ids = vocabulary.lookup(mine).tolist()
        results.append(ids[-shift:] + ids[:-shift] if shift else ids)

    threads = [threading.Thread(target=work, args=(s,)) for s in (0, 7, 1500, 2999)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(vocabulary.ids) == 3000
    assert all(ids == results[0] for ids in results)
    key = vocabulary.model.key
    assert all(int(vocabulary.hashes[vocabulary.ids[w]]) == _word_hash(w, key) for w in words)
