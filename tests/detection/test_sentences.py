"""Sentence splitting of normalised text."""

from hypothesis import given
from hypothesis import strategies as st

from detection.normalize import normalize
from detection.sentences import split_sentences


def pieces(text, **options):
    normalized = normalize(text).text
    return [normalized[a:b] for a, b in split_sentences(normalized, **options)]


def test_it_cuts_chinese_after_sentence_ends_and_closing_quotes():
    text = "他说：“我们走吧。”大家同意了！真的吗？是的；好……最后一句"
    assert pieces(text) == [
        "他说:“我们走吧。”",
        "大家同意了!",
        "真的吗?",
        "是的;",
        "好……",
        "最后一句",
    ]


def test_a_half_width_full_stop_ends_a_chinese_sentence_but_not_a_number():
    assert pieces("增长了3.5个百分点.明年继续。") == ["增长了3.5个百分点.", "明年继续。"]


def test_paragraph_breaks_end_sentences():
    assert pieces("第一段没有句号\n\n第二段") == ["第一段没有句号", "第二段"]
    assert pieces("标题：\n第二段") == ["标题:", "第二段"]
    # A single line break between two ideographs is a line wrapped inside a sentence.
    assert pieces("一个被折行的\n句子。") == ["一个被折行的句子。"]
    assert pieces("A title\n\nThe text starts here.") == ["a title", "the text starts here."]


def test_it_cuts_english_like_untrained_punkt():
    text = "The cat sat on the mat. It was happy! Was it? Yes, 3.14 is pi."
    expected = ["the cat sat on the mat.", "it was happy!", "was it?", "yes, 3.14 is pi."]
    assert pieces(text) == expected
    assert pieces(text, english="punkt-rules") == expected


TRICKY = (
    'Mr. Smith went to Washington. He said "hi!" then left... The U.S. army arrived at 3 p.m. '
    "on Jan. 5. It was (really) big? Yes. E.g. this one. J. Doe wrote it in 1999. twice. "
    "See page 19.) Still, it works (etc.), and so on."
)


def test_the_punkt_rules_agree_with_nltk_punkt_on_tricky_text():
    assert pieces(TRICKY, english="punkt-rules") == pieces(TRICKY, english="punkt")


def test_the_default_english_splitter_is_nltk_punkt():
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    normalized = normalize(TRICKY).text
    expected = [normalized[a:b] for a, b in PunktSentenceTokenizer().span_tokenize(normalized)]
    assert pieces(TRICKY) == expected


def test_long_sentences_are_cut_at_the_same_places_in_a_partial_copy():
    clauses = [f"clause number {i} says something about topic {i * 7}" for i in range(30)]
    original = ", ".join(clauses) + "."
    copy = original[original.index("clause number 11") :]
    whole = pieces(original, max_chars=150)
    part = pieces(copy, max_chars=150)
    assert all(len(p) <= 150 for p in whole)
    assert len(whole) > 1
    # After the first piece the copy is cut exactly like the original.
    assert part[2:] == whole[-len(part) + 2 :]


def test_long_text_without_punctuation_is_cut_too():
    original = " ".join(f"word{i}" for i in range(400))
    assert len(pieces(original, max_chars=200)) > 3


@given(st.text(alphabet=st.sampled_from(list('ab 中文。.!?\n，,"”')), max_size=200))
def test_spans_are_ordered_disjoint_trimmed_and_non_empty(text):
    normalized = normalize(text).text
    spans = split_sentences(normalized, max_chars=20)
    previous_end = 0
    for start, end in spans:
        assert previous_end <= start < end <= len(normalized)
        assert normalized[start] != " " and normalized[end - 1] != " "
        assert "\n" not in normalized[start:end]
        previous_end = end
