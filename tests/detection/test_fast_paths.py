"""The fast paths of analyze() give exactly what the plain definitions give."""

from hypothesis import given
from hypothesis import strategies as st

from detection.normalize import _TABLE, _map_characters

CHARACTERS = st.text(
    alphabet=st.sampled_from(
        list("abcXYZ019 \n\t\r.,'’!?。，！？；…“”中國语言後來發展１２ＡＢ①ﬁ\u200b\u3000İé\x00𠀀")
    ),
    max_size=60,
)


@given(CHARACTERS)
def test_the_character_map_is_str_translate_of_the_learnt_table(text):
    _TABLE.learn(set(text))
    mapped, offsets = _map_characters(text)
    assert mapped == "".join(_TABLE.table.get(ord(ch), ch) for ch in text)
    if offsets is None:
        assert len(mapped) == len(text)


def test_the_character_map_learns_unseen_characters():
    assert _map_characters("ＡＢｃ")[0] == "abc"
    assert _map_characters("Ǆ")[0] == "dž"  # one character becomes two: offsets are kept
    assert _map_characters("Ǆ")[1] is not None


ASCII = st.text(alphabet=st.sampled_from(list("ab Zy9_.,'-\n\t")), max_size=40)


@given(ASCII)
def test_the_ascii_word_pattern_finds_what_the_unicode_one_finds_in_ascii_text(text):
    from detection.words import _ASCII_PIECE, _LATIN_PIECE

    assert _ASCII_PIECE.findall(text) == _LATIN_PIECE.findall(text)


WORDS = st.sampled_from(
    ["的", "了", "我们", "中国", "发展", "是", "在", "the", "a", "of", "to", "cat", "x", "3.14"]
)


@given(
    st.lists(st.lists(WORDS, min_size=1, max_size=12), min_size=1, max_size=6),
    st.integers(0, 3),
    st.integers(0, 3),
    st.integers(1, 3),
)
def test_document_features_follow_the_definition_for_any_chain_shape(sentences, c, han, d):
    import dataclasses

    from detection import DEFAULT_CONFIG
    from detection.features import feature_model, sentence_features
    from detection.vocabulary import document_features

    config = dataclasses.replace(DEFAULT_CONFIG, chain_length=c, han_chain_length=han, chain_gap=d)
    model = feature_model(config)
    words = [w for sentence in sentences for w in sentence]
    ends = [len(s) for s in sentences]
    bounds = [(sum(ends[:i]), sum(ends[: i + 1])) for i in range(len(ends))]
    expected = [sentence_features(sentence, model) for sentence in sentences]
    assert document_features(words, bounds, model) == expected


CHINESE = st.text(alphabet=st.sampled_from(list("中文a1.。!?;…”』) ,")), max_size=40)


@given(CHINESE)
def test_chinese_pieces_end_after_each_sentence_end_match(text):
    from detection.sentences import _CHINESE_END, _chinese_spans

    expected = []
    cursor = 0
    for match in _CHINESE_END.finditer(text):
        expected.append((cursor, match.end()))
        cursor = match.end()
    if cursor < len(text):
        expected.append((cursor, len(text)))
    assert _chinese_spans(text, 0, len(text)) == expected
    framed = "。a\n" + text + "\n1.2"  # a paragraph of a longer text
    assert _chinese_spans(framed, 3, 3 + len(text)) == [(a + 3, b + 3) for a, b in expected]


SPARSE_CHINESE = st.lists(
    st.sampled_from(["中文", "發展", "。", "a", "1", " ", "\n", "\n\n", "\t", "\u3000", "  "]),
    max_size=30,
).map("".join)


@given(SPARSE_CHINESE)
def test_whitespace_runs_in_chinese_text_are_found_like_the_regex_finds_them(text):
    from detection.normalize import _WHITESPACE_RUN, _whitespace_runs

    framed = "中" * 40 + text + "中" * 40  # sparse whitespace: the per-candidate path
    for sample in (text, framed):
        expected = [m.span() for m in _WHITESPACE_RUN.finditer(sample)]
        assert list(_whitespace_runs(sample)) == expected


@given(st.text(alphabet=st.sampled_from(list(" \n\t\r\x0b\x0c\x1c\x1fab.,")), max_size=30))
def test_whitespace_runs_in_ascii_text_are_found_like_the_regex_finds_them(text):
    from detection.normalize import _WHITESPACE_RUN, _whitespace_runs

    assert list(_whitespace_runs(text)) == [m.span() for m in _WHITESPACE_RUN.finditer(text)]


@given(st.text(alphabet=st.sampled_from(list(" \n\t\r\x0b\x1c\x1fab.,é中")), max_size=30))
def test_single_breaks_are_joined_like_the_regex_joins_them(text):
    from detection.normalize import _LATIN_SINGLE, _join_single_breaks

    framed = "word " * 40 + text + " word" * 40  # sparse whitespace: the per-position path
    for sample in (text, framed):
        assert _join_single_breaks(sample) == _LATIN_SINGLE.sub(" ", sample)
