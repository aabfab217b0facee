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
