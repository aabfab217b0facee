"""Quoted text and reference lists found in extracted texts (extraction.citations), and the
block quotes the DOCX and HTML readers report."""

from __future__ import annotations

import io

import docx
from hypothesis import given
from hypothesis import strategies as st

from extraction import extract
from extraction.citations import find_citations, merged, overlap, word_count

ESSAY = (
    "Rivers matter to farmers.\n"
    "As Smith wrote, “water is the driving force of all nature” and farmers know it.\n"
    'The villagers called it "the old river" long before the map did.\n'
    "老师说：「学而时习之，不亦说乎。」我们都记住了。\n"
    "书中写道『青山依旧在，几度夕阳红』。\n"
)
REFERENCES = (
    "References\n"
    "Smith, J. (2001). Rivers and landscapes. Oxford University Press.\n"
    "Chen, L. et al. (2015). Floods. Journal of Rural Studies, 31(2), 101-118.\n"
)


def quoted(text: str) -> list[str]:
    return [text[s:e] for s, e in find_citations(text).quotes]


def test_it_finds_quotes_in_english_and_chinese_marks():
    assert quoted(ESSAY) == [
        "“water is the driving force of all nature”",
        '"the old river"',
        "「学而时习之，不亦说乎。」",
        "『青山依旧在，几度夕阳红』",
    ]


def test_a_quote_never_spans_paragraphs():
    assert quoted("He said “this is open\nand this is not” ok.") == []


def test_it_finds_a_reference_list_to_the_end():
    text = ESSAY + REFERENCES
    [(start, end)] = find_citations(text).bibliography
    assert text[start:end] == REFERENCES
    assert start == len(ESSAY)


def test_a_reference_list_ends_at_the_next_major_heading():
    text = ESSAY + REFERENCES + "Appendix A\nThe interview questions we asked the farmers.\n"
    [(start, end)] = find_citations(text).bibliography
    assert text[start:end] == REFERENCES


def test_chinese_reference_headings_are_found():
    for heading in ("参考文献", "参考资料", "引用文献", "五、参考文献："):
        text = f"正文内容。\n{heading}\n[1] 王明. 城市交通[J]. 规划学刊, 2018, (3): 45-52.\n"
        assert find_citations(text).bibliography, heading


def test_a_heading_over_prose_is_no_reference_list():
    """A "References" line on top of an essay must not hide the essay."""
    text = (
        "References\nThis essay is about the river near our school.\n"
        "We walked there every week and watched the birds.\nIt was fun and we learnt a lot.\n"
    )
    assert find_citations(text).bibliography == ()


def test_literature_review_is_no_reference_heading():
    text = "Literature Review\nSmith (2001) wrote about rivers.\n"
    assert find_citations(text).bibliography == ()


def test_block_quotes_are_found_as_whole_lines():
    text = "Intro line.\nA long quotation set apart.\nMy own line.\n"
    [(start, end)] = find_citations(text, ["A long  quotation set apart."]).quotes
    assert text[start:end] == "A long quotation set apart."


def test_words_count_a_chinese_character_as_one():
    assert word_count("The river, 2001!") == 3
    assert word_count("长江很长") == 4
    assert word_count("长江 is long") == 4


def test_ranges_merge_and_overlap():
    assert merged([(5, 9), (0, 3), (2, 4), (9, 9)]) == ((0, 4), (5, 9))
    assert overlap(2, 7, [(0, 3), (6, 10)]) == 2


def test_a_docx_quote_paragraph_is_a_block_quote():
    document = docx.Document()
    document.add_paragraph("My essay begins with my own words about rivers.")
    document.add_paragraph("Water is the driving force of all nature.", style="Quote")
    document.add_paragraph("Block text also sets a quotation apart.", style="Intense Quote")
    document.add_paragraph("And it ends with my own words again.")
    data = io.BytesIO()
    document.save(data)
    extracted = extract("essay.docx", data.getvalue())
    assert extracted.block_quotes == (
        "Water is the driving force of all nature.",
        "Block text also sets a quotation apart.",
    )
    assert len(find_citations(extracted.text, extracted.block_quotes).quotes) == 2


def test_an_html_blockquote_is_a_block_quote():
    page = (
        "<html><head><title>Essay</title></head><body><article><h1>Rivers</h1>"
        "<p>The committee published its annual report on Monday and many people read it.</p>"
        "<blockquote><p>Water is the driving force of all nature, as Leonardo wrote long ago "
        "in one of his notebooks.</p></blockquote>"
        "<p>Engineers replaced most of the old pipes and built two new treatment plants.</p>"
        "</article></body></html>"
    )
    extracted = extract("essay.html", page.encode())
    assert extracted.block_quotes == (
        "Water is the driving force of all nature, as Leonardo wrote long ago in one of his "
        "notebooks.",
    )
    [(start, end)] = find_citations(extracted.text, extracted.block_quotes).quotes
    assert extracted.text[start:end].startswith("Water is the driving force")


@given(
    st.lists(st.tuples(st.integers(0, 300), st.integers(1, 20)), max_size=30),
    st.integers(0, 400),
    st.integers(0, 100),
)
def test_overlap_counts_what_a_sum_over_every_range_counts(pieces, start, length):
    ranges = merged((begin, begin + size) for begin, size in pieces)
    end = start + length
    naive = sum(max(0, min(end, last) - max(start, first)) for first, last in ranges)
    assert overlap(start, end, ranges) == naive
