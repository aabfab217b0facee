"""Normalisation offsets, tokenisation offsets and language identification."""

import re

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from detection.language import detect_language
from detection.normalize import _IDEOGRAPH, normalize, normalize_with_offsets, original_spans
from detection.words import tokenize

MIXED_TEXT = st.text(
    alphabet=st.sampled_from(
        list("abcXYZ019 \n\t\r.,!?。，！？；…“”中國语言後來發展１２ＡＢ①ﬁ\u200b\u3000İ")
    ),
    max_size=60,
)


def test_it_folds_width_case_and_traditional_characters():
    assert normalize("Ｈｅｌｌｏ ＷＯＲＬＤ １９９８").text == "hello world 1998"
    assert normalize("後來的發展").text == normalize("后来的发展").text


def test_it_joins_hard_wrapped_chinese_and_keeps_paragraphs():
    assert normalize("中国\n人民。\n\n下一段").text == "中国人民。\n下一段"
    assert normalize("标题：\n正文。\n下一段").text == "标题:\n正文。\n下一段"
    assert normalize("中 国").text == "中国"
    assert normalize("one\ntwo  three\n\nfour").text == "one two three\nfour"


def test_it_maps_spans_back_to_the_original():
    original = "  ﬁne Ｗｏｒｄ\u200b here"
    normalized = normalize(original)
    start = normalized.text.index("word")
    begin, end = normalized.original_span(start, start + 4)
    assert original[begin:end] == "Ｗｏｒｄ"
    assert normalized.original_span(0, 2) == (2, 3)


@given(MIXED_TEXT)
def test_offsets_are_monotonic_and_point_at_the_source_character(text):
    normalized = normalize(text)
    offsets = normalized.offsets
    assert len(offsets) == len(normalized.text) + 1
    assert offsets[-1] == len(text)
    assert all(a <= b for a, b in zip(offsets, offsets[1:], strict=False))
    for position, ch in enumerate(normalized.text):
        source = text[offsets[position]]
        if ch in " \n":
            assert source.isspace()
        else:
            assert ch in normalize(source).text or not source.isspace()


@given(MIXED_TEXT, st.data())
def test_the_array_offsets_map_spans_like_original_span(text, data):
    normalized = normalize(text)
    folded, offsets = normalize_with_offsets(text)
    assert folded == normalized.text
    cuts = sorted(data.draw(st.sets(st.integers(0, len(folded)), max_size=6)) | {0, len(folded)})
    spans = [(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]
    assert original_spans(offsets, spans) == [normalized.original_span(a, b) for a, b in spans]


# A paragraph break between two ideographs is normalised to one "\n", which a second pass
# reads as a line wrapped inside a Chinese sentence and joins: normalize is for raw text and
# runs once (the pipeline never normalises its own output). Outside that case it is stable.
_IDEOGRAPH_LINE_BREAK = re.compile(f"[{_IDEOGRAPH}]\n[{_IDEOGRAPH}]")


@given(MIXED_TEXT)
@example("中\r\r中")  # found by hypothesis: the documented exception, skipped below
def test_normalising_twice_keeps_the_words(text):
    once = normalize(text).text
    assume(not _IDEOGRAPH_LINE_BREAK.search(once))
    assert [t.text for t in tokenize(normalize(once).text)] == [t.text for t in tokenize(once)]


def test_a_paragraph_break_between_ideographs_is_one_line_break_once_normalised():
    assert normalize("中\r\r中").text == normalize("中\n\n中").text == "中\n中"
    assert normalize("中\n中").text == "中中"  # a wrapped line (PDF text)


@given(MIXED_TEXT)
def test_tokens_are_substrings_at_their_offsets(text):
    for token in tokenize(text):
        assert text[token.start : token.end] == token.text
        assert token.text.strip() == token.text and token.text


def test_it_cuts_chinese_with_embedded_numbers_and_latin_words():
    words = [t.text for t in tokenize("我们在1998年看到了hello world的文章，don't 3.14")]
    assert words == [
        "我们",
        "在",
        "1998",
        "年",
        "看到",
        "了",
        "hello",
        "world",
        "的",
        "文章",
        "don't",
        "3.14",
    ]


def test_english_words_are_cut_the_same_inside_chinese_text():
    english = [t.text for t in tokenize("the cat sat on the mat")]
    inside = [t.text for t in tokenize("中文the cat sat on the mat中文")]
    assert inside[1:-1] == english


def test_it_identifies_languages():
    assert detect_language("这是一个中文句子，没有英文。") == "zh"
    assert detect_language("This is an English sentence.") == "en"
    assert detect_language("这是中文 and this is English text 混合") == "mixed"
    assert detect_language("12345 ...") == "en"


@settings(max_examples=500)
@given(st.text(alphabet=st.sampled_from(list("ab é1 2.,'’ -")), max_size=50), st.data())
def test_words_by_sentence_are_the_words_of_the_whole_text(text, data):
    from detection.words import _assigned, sentence_words

    cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=8)))
    spans = [(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]
    spans = [span for i, span in enumerate(spans) if data.draw(st.booleans()) or i % 2]

    def by_span(result):
        words, bounds, kept = result
        return kept, [words[first:last] for first, last in bounds]

    assert by_span(sentence_words(text, spans)) == by_span(_assigned(text, spans))


# Borders after the characters that never join (_ENDS_WORDS) and after those that may; and
# the separator of _han_sentence_words inside the text itself.
_CHINESE_ALPHABET = list("ab 1,2.’'中文人民大会。!?;:)」、\n\"\x00")


@settings(max_examples=300)
@given(st.text(alphabet=st.sampled_from(_CHINESE_ALPHABET), max_size=50), st.data())
def test_words_by_sentence_of_chinese_text_are_the_words_of_the_whole_text(text, data):
    from detection.words import _assigned, sentence_words

    cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=8)))
    spans = [(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]
    words, bounds, kept = sentence_words(text, spans)
    expected_words, expected_bounds, expected_kept = _assigned(text, spans)
    assert kept == expected_kept
    assert [words[a:b] for a, b in bounds] == [expected_words[a:b] for a, b in expected_bounds]


@settings(max_examples=500)
@given(
    st.text(alphabet=st.sampled_from(list(" \n\t\r\x0b\x1c\u3000\xa0\u2028ab.,é中")), max_size=30)
)
def test_whitespace_runs_are_found_like_the_regex_finds_them(text):
    from detection.normalize import _WHITESPACE_RUN, _whitespace_runs

    assert list(_whitespace_runs(text)) == [m.span() for m in _WHITESPACE_RUN.finditer(text)]


def test_a_border_inside_a_word_of_chinese_text_keeps_the_word_whole():
    from detection.words import _assigned, sentence_words

    for text, cut in [("中文don’t了", 5), ("中文1,000了", 4), ("中文it's了", 5), ("人民3.14。", 4)]:
        spans = [(0, cut), (cut, len(text))]
        assert sentence_words(text, spans) == _assigned(text, spans)
