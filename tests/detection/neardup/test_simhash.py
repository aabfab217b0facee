from collections import Counter

from neardup_samples import ARTICLE_A, ARTICLE_B

from detection.neardup.bands import hamming
from detection.neardup.clustering import StreamingClusterer
from detection.neardup.simhash import SimHash, ngrams, simhash


def test_ngrams_are_word_bigrams_with_term_frequency():
    assert ngrams(["a", "b", "a", "b"], 2) == Counter({"a b": 2, "b a": 1})
    assert ngrams(["solo"], 2) == Counter({"solo": 1})


def test_simhash_is_stable_and_follows_the_heaviest_feature():
    single = simhash(Counter({"x y": 1}), seed=1)
    assert simhash(Counter({"x y": 1}), seed=1) == single
    # One feature dominating the votes decides every bit.
    assert simhash(Counter({"x y": 100, "p q": 1, "r s": 1}), seed=1) == single


def test_reprint_on_another_site_is_a_duplicate(collection):
    method = SimHash()
    method.fit(collection.values())
    a, b = method.signature(collection[0]), method.signature(collection[1])
    assert hamming(a, b) <= 3
    assert method.relation(a, b).kind == "duplicate"


def test_different_story_on_the_same_site_is_different(collection):
    method = SimHash()
    method.fit(collection.values())
    a, b = method.signature(collection[0]), method.signature(collection[4])
    assert method.relation(a, b).kind == "different"


def test_streaming_gives_a_reprint_the_id_of_its_original():
    method = SimHash()
    clusterer = StreamingClusterer(method)
    first = clusterer.assign(10, method.signature(ARTICLE_A))
    second = clusterer.assign(11, method.signature(ARTICLE_B))
    # One word changed: 2 of 64 bits differ (hand-checked), within the seed's distance 3.
    third = clusterer.assign(12, method.signature(ARTICLE_A.replace("普遍", "全面")))
    assert (first, second, third) == (10, 11, 10)
