import pytest

from detection.neardup.periods import PeriodConfig, PeriodFeatures, PeriodSig, ccs, period_features


def test_features_are_the_chars_before_each_stop():
    text = "今天天气很好我们去公园散步。好。。明天下雨"
    assert period_features(text, length=5) == ["去公园散步", "好"]


def test_short_gap_gives_the_text_between_stops_and_empty_gap_nothing():
    assert period_features("甲乙。丙。。", length=10) == ["甲乙", "丙"]


def test_latin_full_stop_counts_before_whitespace_only():
    assert period_features("It cost 3.5 dollars. Fine.", length=6) == ["ollars", "Fine"]


def test_ccs_divides_by_the_smaller_set():
    a, b = frozenset({1, 2, 3, 4}), frozenset({3, 4, 5, 6, 7, 8, 9, 10})
    assert ccs(a, b) == pytest.approx(0.5)
    assert ccs(frozenset({1, 2}), frozenset({1, 2, 3, 4, 5})) == 1.0
    assert ccs(frozenset(), frozenset({1})) == 0.0


def test_relation_tells_duplicate_from_containment():
    method = PeriodFeatures(PeriodConfig(min_ratio=0.85, min_ccs=0.5, min_shared=2))
    full = PeriodSig(frozenset(range(10)))
    near = PeriodSig(frozenset(range(1, 11)))
    part = PeriodSig(frozenset(range(4)))
    other = PeriodSig(frozenset(range(100, 110)))
    assert method.relation(full, near).kind == "duplicate"
    assert method.relation(full, part).kind == "containment"
    assert method.relation(part, full).kind == "containment"
    assert method.relation(full, other).kind == "different"


def test_template_features_in_many_documents_are_dropped():
    boiler = "本网所有内容未经授权禁止转载。"
    texts = [boiler + f"这篇文章的编号是{i}号。" for i in range(6)]
    method = PeriodFeatures(PeriodConfig(min_df=5))
    method.fit(texts)
    sig0, sig1 = method.signature(texts[0]), method.signature(texts[1])
    assert len(sig0.features) == 1
    assert method.relation(sig0, sig1).kind == "different"


def test_collection_relations(collection):
    method = PeriodFeatures()
    method.fit(collection.values())
    sig = {d: method.signature(t) for d, t in collection.items()}
    assert method.relation(sig[0], sig[1]).kind == "duplicate"
    assert method.relation(sig[0], sig[2]).kind == "containment"
    assert method.relation(sig[0], sig[3]).kind == "containment"
    assert method.relation(sig[0], sig[4]).kind == "different"
    index = method.new_index()
    for d in (1, 2, 3, 4, 5):
        index.add(d, sig[d])
    assert index.candidates(sig[0]) == {1, 2, 3}
