"""detection.punkt gives exactly NLTK Punkt's span_tokenize spans."""

from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.tokenize.punkt import PunktSentenceTokenizer

from detection.punkt import punkt_spans

# Pieces that exercise every kind of candidate: words, initials, numbers, abbreviations,
# ellipses, the three marks, quotes and brackets to realign, other punctuation, and spaces.
PIECES = [
    "a",
    "b",
    "x",
    "mr",
    "the",
    "j",
    "u.s",
    "1",
    "12",
    "3.5",
    ".",
    ".",
    "?",
    "!",
    "...",
    ")",
    "(",
    '"',
    "'",
    "\u201d",
    "\u2019",
    "\xab",
    "\xbb",
    "]",
    "*",
    " ",
    " ",
    " ",
    "  ",
    "--",
    ",",
    ";",
    ":",
    "e.g",
    "-",
    "Ab",
    "A",
    "é",
    "²",
    "\t",
    "\n",
]


def nltk_spans(text):
    return list(PunktSentenceTokenizer().span_tokenize(text))


@settings(max_examples=2000)
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
def test_it_cuts_exactly_like_nltk_punkt(text):
    assert punkt_spans(text) == nltk_spans(text)


def test_it_keeps_nltk_decisions_on_abbreviations_initials_and_numbers():
    text = (
        'mr. smith went to washington. he said "hi!" then left... the u.s. army arrived at '
        "3 p.m. on jan. 5. it was (really) big? yes. e.g. this one. j. doe wrote it in 1999. "
        "twice. see page 19.) still, it works (etc.), and so on. wow!!! ok."
    )
    assert punkt_spans(text) == nltk_spans(text)
    assert len(punkt_spans(text)) > 5


def test_decisions_remembered_for_a_context_hold_in_every_later_text():
    # Contexts whose next token is not a plain word ("16).", "(c.") are remembered whole.
    contexts = ["see p. 16). then", "it was 1999. (c. 1600) x", "j. doe. 2nd time", "f. . g"]
    for text in contexts + [" ".join(contexts), " ".join(reversed(contexts))]:
        assert punkt_spans(text) == nltk_spans(text)
        assert punkt_spans(text) == nltk_spans(text)  # second time from the remembered ones
