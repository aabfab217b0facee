from hypothesis import given, settings
from hypothesis import strategies as st

from detection.neardup.ddw import DDW, DDWConfig, DDWSig, lcs_length, sentence_codes


def lcs_table(a, b):
    """Textbook O(|a|·|b|) dynamic programme, the reference for the bit-parallel version."""
    row = [0] * (len(b) + 1)
    for x in a:
        prev_diag, row[0] = 0, 0
        for j, y in enumerate(b, start=1):
            prev_diag, row[j] = row[j], prev_diag + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def test_codes_take_head_and_tail_of_each_sentence():
    text = "我们今天去公园散步,天气很好。明天的计划还没有定"
    config = DDWConfig()
    # Sentences: 我们今天去公园散步 | 天气很好 | 明天 | 计划还没有定  ("的" is a delimiter)
    assert sentence_codes(text, config.delimiters, k=2) == [
        "我们散步",
        "天气很好",
        "明天",
        "计划有定",
    ]


def test_lcs_known_values():
    assert lcs_length([1, 2, 3, 4], [1, 3, 4]) == 3
    assert lcs_length([1, 2, 3], [3, 2, 1]) == 1
    assert lcs_length([], [1]) == 0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 5), max_size=70), st.lists(st.integers(0, 5), max_size=70))
def test_bit_parallel_lcs_equals_dynamic_programming(a, b):
    assert lcs_length(a, b) == lcs_table(a, b)


def test_order_matters_and_containment_is_told_apart():
    method = DDW(DDWConfig(min_degree=0.5, min_ratio=0.85))
    full = DDWSig(tuple(range(20)), frozenset())
    shuffled = DDWSig(tuple(reversed(range(20))), frozenset())
    part = DDWSig(tuple(range(5, 12)), frozenset())
    edited = DDWSig(tuple(range(18)) + (98, 99), frozenset())
    assert method.relation(full, shuffled).kind == "different"
    assert method.relation(full, part).kind == "containment"
    assert method.relation(full, edited).kind == "duplicate"


def test_collection_relations(collection):
    method = DDW()
    method.fit(collection.values())
    sig = {d: method.signature(t) for d, t in collection.items()}
    assert method.relation(sig[0], sig[1]).kind == "duplicate"
    assert method.relation(sig[2], sig[0]).kind == "containment"
    assert method.relation(sig[0], sig[4]).kind == "different"
    index = method.new_index()
    for d in (1, 4, 5, 6):
        index.add(d, sig[d])
    assert index.candidates(sig[0]) == {1}
