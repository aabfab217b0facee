"""highlight_html: escaping and the mark spans of the side-by-side view."""

import re

from documents.highlight import highlight_html


def ids(html: str) -> list[str]:
    return re.findall(r'\bid="([^"]+)"', html)


def marks_of(html: str, number: int) -> list[str]:
    """The text of every mark that lists passage ``number`` in data-pairs."""
    found = re.findall(r'<mark [^>]*data-pairs="([^"]*)"[^>]*>([^<]*)</mark>', html)
    return [text for pairs, text in found if str(number) in pairs.split()]


def test_it_escapes_text_outside_and_inside_marks():
    html = highlight_html("<b>x</b> & <i>", [(0, 8)], side="q")
    assert html == (
        '<mark class="c0" data-pair="0" id="q-0" data-pairs="0">&lt;b&gt;x&lt;/b&gt;</mark>'
        " &amp; &lt;i&gt;"
    )


def test_without_ranges_it_is_only_escaped():
    assert highlight_html("a<b\n", [], side="s") == "a&lt;b\n"


def test_overlapping_ranges_give_one_anchor_per_passage():
    html = highlight_html("abcdef", [(0, 4), (2, 6)], side="s")
    assert html == (
        '<mark class="c0" data-pair="0" id="s-0" data-pairs="0">ab</mark>'
        '<mark class="c0" data-pair="0" id="s-1" data-pairs="0 1">cd</mark>'
        '<mark class="c1" data-pair="1" data-pairs="1">ef</mark>'
    )


def test_ranges_beyond_the_text_are_clipped():
    assert highlight_html("abc", [(1, 99)], side="q") == (
        'a<mark class="c0" data-pair="0" id="q-0" data-pairs="0">bc</mark>'
    )


def test_a_source_range_copied_twice_gives_each_passage_its_own_target():
    # The review's case: passages 0 and 1 both copy source characters 2-5.
    html = highlight_html("xx<p>yy", [(2, 5), (2, 5)], side="s")
    assert html == (
        'xx<span class="anchor" id="s-1" data-pairs="1"></span>'
        '<mark class="c0" data-pair="0" id="s-0" data-pairs="0 1">&lt;p&gt;</mark>yy'
    )
    assert marks_of(html, 0) == marks_of(html, 1) == ["&lt;p&gt;"]


def test_every_passage_has_exactly_one_target_whatever_the_ranges():
    text = "0123456789" * 3
    ranges = [(5, 15), (5, 15), (0, 30), (10, 12), (12, 12), (25, 40), (40, 50), (8, 3)]
    html = highlight_html(text, ranges, side="q")
    assert sorted(ids(html)) == sorted(f"q-{n}" for n in range(len(ranges)))
    # The text survives unchanged once the markup is removed.
    assert re.sub(r"<[^>]+>", "", html) == text


def test_every_piece_of_a_passage_lists_it_and_keeps_the_first_colour():
    html = highlight_html("abcdefgh", [(0, 6), (2, 8)], side="q")
    assert "".join(marks_of(html, 0)) == "abcdef"
    assert "".join(marks_of(html, 1)) == "cdefgh"
    assert re.findall(r'class="(c\d)"', html) == ["c0", "c0", "c1"]


def test_a_target_sits_where_its_passage_starts():
    text = "first copy. other text. first copy."
    ranges = [(0, 11), (24, 35)]
    for side in ("q", "s"):
        html = highlight_html(text, ranges, side=side)
        for number, (start, _end) in enumerate(ranges):
            before = html.split(f'id="{side}-{number}"')[0]
            assert len(re.sub(r"<[^>]*$", "", re.sub(r"<[^>]+>", "", before))) == start


def test_with_context_long_unmarked_stretches_are_shortened_and_marks_kept():
    text = "a" * 5000 + "COPIED" + "b" * 5000 + "AGAIN" + "c" * 300
    ranges = [(5000, 5006), (10006, 10011)]
    html = str(highlight_html(text, ranges, side="q", context=100))
    assert html.count('<span class="gap">') == 2  # before the first mark, between the two
    assert html.startswith("a" * 100 + '<span class="gap">')  # the opening stays
    assert "[… 4,800 characters without copied text …]" in html  # both times
    assert 'id="q-0"' in html and ">COPIED</mark>" in html and ">AGAIN</mark>" in html
    assert html.endswith("c" * 300)  # a stretch too short to shorten stays whole
    assert len(html) < 1000


def test_a_long_text_with_nothing_copied_keeps_its_opening():
    html = str(highlight_html("x" * 5000, [], side="q", context=100))
    assert html.startswith("x" * 100) and "[… 4,900 characters without copied text …]" in html


def test_without_context_the_whole_text_is_kept():
    text = "a" * 5000 + "COPIED"
    html = str(highlight_html(text, [(5000, 5006)], side="q"))
    assert "gap" not in html and html.startswith("a" * 5000)


def test_excluded_passages_and_muted_text_inside_a_passage_are_greyed():
    text = "copied “quoted” copied. own text. small"
    html = highlight_html(text, [(0, 23), (34, 39)], side="q", excluded={1}, muted=[(7, 15)])
    greyed = re.findall(r'<mark class="c\d excluded"[^>]*>([^<]*)</mark>', html)
    assert greyed == ["“quoted”", "small"]
    assert marks_of(html, 0) == ["copied ", "“quoted”", " copied."]
    assert ids(html) == ["q-0", "q-1"]
