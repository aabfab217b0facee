"""The C parts of detection.words.sentence_words give exactly what their Python fallbacks give,
None included: the loop of _han_sentence_words (``_lisfeatures.han_runs`` and ``han_words``)
and _latin_sentence_words of ASCII text (``_lisfeatures.ascii_words``)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from detection import words
from detection.words import _assigned, _han_runs_py, _han_sentence_words, _han_words_py

native = pytest.mark.skipif(words._lisfeatures is None, reason="detection._lisfeatures not built")

# Han (BMP, compatibility, supplementary: the three string kinds), Latin letters with and
# without accents, apostrophes, digits with "." and ",", spaces and breaks, the characters
# after which no word continues, other punctuation, "_" and the separator itself.
_ALPHABET = list("中文人民大会豈𠀀字ab zé1,2.’'。!?;:)」、\n\"_-\x00")
_CHUNKS = st.one_of(
    st.text(alphabet=st.sampled_from(_ALPHABET), max_size=6),
    st.sampled_from([" ", "。", "\n"]),
    st.sampled_from(["中华人民共和国", "don't", "it’s", "3.14", "1,000", "naïve", "𠀀𠀁"]),
)
_TEXT = st.lists(_CHUNKS, min_size=1, max_size=12).map("".join)


def _spans(data: st.DataObject, text: str) -> list[tuple[int, int]]:
    """Ordered disjoint spans, some empty, some touching the text's ends, some left out; most
    borders where no word continues (else the cut is None), some anywhere."""
    safe = [0, len(text)] + [i for i in range(1, len(text)) if text[i - 1] in " \n。"]
    position = st.one_of(st.sampled_from(safe), st.integers(0, len(text)))
    cuts = sorted(data.draw(st.sets(position, min_size=2, max_size=10)))
    if data.draw(st.booleans()):  # an empty span
        cuts = sorted([*cuts, data.draw(st.sampled_from(cuts))])
    spans = list(zip(cuts, cuts[1:], strict=False))
    return [span for i, span in enumerate(spans) if i % 3 != 1 or data.draw(st.booleans())]


def _python(text: str, spans: list[tuple[int, int]]):
    saved = words._han_runs, words._han_words
    words._han_runs, words._han_words = _han_runs_py, _han_words_py
    try:
        return _han_sentence_words(text, spans)
    finally:
        words._han_runs, words._han_words = saved


def _native(text: str, spans: list[tuple[int, int]]):
    saved = words._han_runs, words._han_words
    words._han_runs, words._han_words = words._lisfeatures.han_runs, words._lisfeatures.han_words
    try:
        return _han_sentence_words(text, spans)
    finally:
        words._han_runs, words._han_words = saved


def test_the_native_loop_is_used_when_built():
    assert words.NATIVE_WORDS == (words._lisfeatures is not None)
    if words.NATIVE_WORDS:
        assert words._han_words is words._lisfeatures.han_words
        assert words._han_runs is words._lisfeatures.han_runs


def _agrees_with_the_whole_text_cut(text, spans, got):
    """str words, and span by span the words of the whole-text cut (`_assigned`)."""
    assert all(type(word) is str for word in got[0])
    whole, whole_bounds, whole_kept = _assigned(text, spans)
    assert got[2] == whole_kept
    assert [got[0][a:b] for a, b in got[1]] == [whole[a:b] for a, b in whole_bounds]


@native
@settings(max_examples=1500, deadline=None)
@given(_TEXT, st.data())
def test_the_c_loop_gives_what_the_python_loop_gives(text, data):
    spans = _spans(data, text)
    expected = _python(text, spans)
    got = _native(text, spans)
    assert got == expected
    if expected is None:  # a word may cross a border, or the text holds the separator
        return
    assert all(type(pair) is tuple for pair in got[1])
    _agrees_with_the_whole_text_cut(text, spans, got)


@native
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=4), st.text(max_size=4)), max_size=10))
def test_the_runs_are_joined_like_python_joins_them(pieces):
    assert words._lisfeatures.han_runs(pieces) == _han_runs_py(pieces)


@native
@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.tuples(st.sampled_from(["中", "文字"]), st.just("")),
            st.tuples(st.just(""), st.sampled_from(["\x00", "a", "3.1", "", "\x00\x00"])),
        ),
        max_size=12,
    ),
    st.lists(st.sampled_from(["中", "文", " ", "  ", "x"]), max_size=16),
)
def test_the_c_loop_follows_the_python_loop_on_any_pieces_and_tokens(pieces, tokens):
    """Including tokens that run out before the pieces do (ValueError in both)."""
    try:
        expected = _han_words_py(pieces, tokens)
    except ValueError:
        with pytest.raises(ValueError):
            words._lisfeatures.han_words(pieces, tokens)
        return
    assert words._lisfeatures.han_words(pieces, tokens) == expected


@native
def test_the_words_are_the_str_objects_of_the_tokens_and_pieces():
    pieces = [("中文", ""), ("", "cat"), ("", "\x00"), ("", "\x00"), ("人", ""), ("", "\x00")]
    tokens = ["中", "文", " ", "人", " "]
    got = words._lisfeatures.han_words(pieces, tokens)
    assert got == (["中", "文", "cat", "人"], [(0, 3), (3, 4)], [0, 2])
    assert got[0][0] is tokens[0] and got[0][2] is pieces[1][1]
    assert words._lisfeatures.han_runs(pieces) == "中文 人 "
    assert words._lisfeatures.han_runs([("", "a")]) == ""


@native
def test_bad_arguments_raise_instead_of_crashing():
    lisfeatures = words._lisfeatures
    with pytest.raises(TypeError):
        lisfeatures.han_words([("a",)], [])
    with pytest.raises(TypeError):
        lisfeatures.han_words((("a", ""),), [])
    with pytest.raises(TypeError):
        lisfeatures.han_words([("a", 1)], [" "])
    with pytest.raises(TypeError):
        lisfeatures.han_runs("abc")
    with pytest.raises(TypeError):
        lisfeatures.han_words([])


@native
@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("", []),
        ("中文", [(0, 0), (0, 2), (2, 2)]),
        ("中文don’t了", [(0, 5), (5, 8)]),  # a border inside a word: None
        ("人民3.14。", [(0, 4), (4, 7)]),
        ("中\x00文", [(0, 3)]),  # the separator in the text: None
        ("  中文 cat 1,000 。", [(0, 2), (2, 9), (9, 16)]),
    ],
)
def test_edge_cases(text, spans):
    assert _native(text, spans) == _python(text, spans)


# ASCII text: letters, apostrophes, digits with "." and ",", spaces, breaks, other punctuation.
_ASCII_TEXT = st.lists(
    st.one_of(
        st.text(alphabet=st.sampled_from(list("abZ y19 0.,'\n-_\t;!")), max_size=6),
        st.sampled_from([" ", "\n", ". ", "don't", "it's'", "3.14", "1,000.", "a'b'c", "x''y"]),
    ),
    min_size=1,
    max_size=12,
).map("".join)


def _ascii_python(text: str, spans):
    return words._latin_sentence_words(text, spans)


@native
@settings(max_examples=1500, deadline=None)
@given(_ASCII_TEXT, st.data())
def test_ascii_words_in_c_give_what_the_python_path_gives(text, data):
    spans = _spans(data, text)
    expected = _ascii_python(text, spans)
    got = words._lisfeatures.ascii_words(text, spans)
    assert got == expected
    if expected is not None:
        _agrees_with_the_whole_text_cut(text, spans, got)


@native
@settings(max_examples=500, deadline=None)
@given(_ASCII_TEXT, st.lists(st.tuples(st.integers(-2, 60), st.integers(-2, 60)), max_size=6))
def test_ascii_words_in_c_on_any_spans(text, spans):
    """Unordered, overlapping spans as the Python loop takes them; a span outside the text,
    once reached (the loop may return None before), is left to the Python path."""
    got = words._lisfeatures.ascii_words(text, spans)
    if got is NotImplemented:
        assert any(not 0 <= start <= end <= len(text) for start, end in spans)
    else:
        assert got == _ascii_python(text, spans)


@native
@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("", []),
        ("", [(0, 0)]),
        ("a", [(0, 1)]),
        ("don't stop", [(0, 3), (3, 10)]),  # a border inside a word: None
        ("pi 3.14 here", [(0, 4), (4, 12)]),  # the start border joins: None
        ("cost 1,000. Then", [(0, 6), (6, 16)]),
        ("cost 1,000. Then", [(0, 9), (9, 16)]),  # the end joins: the word stays in span 0
        ("it's", [(0, 3), (3, 4)]),
        ("a b. c d.", [(0, 4), (4, 4), (5, 9)]),
        ("x'", [(0, 2)]),
        ("ab'", [(0, 2)]),
    ],
)
def test_ascii_edge_cases(text, spans):
    assert words._lisfeatures.ascii_words(text, spans) == _ascii_python(text, spans)


def test_sentence_words_with_and_without_the_extension():
    text = "The cat's 3.14 mat. 中文 don't 1,000."
    spans = [(0, 19), (20, len(text))]
    expected = _assigned(text, spans)
    assert words.sentence_words(text, spans) == expected
    ascii_text = "The cat's 3.14 mat. Don't 1,000."
    ascii_spans = [(0, 19), (20, len(ascii_text))]
    saved = words._ascii_words
    try:
        words._ascii_words = None
        python = words.sentence_words(ascii_text, ascii_spans)
    finally:
        words._ascii_words = saved
    assert words.sentence_words(ascii_text, ascii_spans) == python
    assert python[0] == ["The", "cat's", "3.14", "mat", "Don't", "1,000"]
