"""highlight_html: escaping and the mark spans of the side-by-side view."""

from documents.highlight import highlight_html


def test_it_escapes_text_outside_and_inside_marks():
    html = highlight_html("<b>x</b> & <i>", [(0, 8)], side="q")
    assert html == (
        '<mark class="c0" data-pair="0" id="q-0">&lt;b&gt;x&lt;/b&gt;</mark> &amp; &lt;i&gt;'
    )


def test_without_ranges_it_is_only_escaped():
    assert highlight_html("a<b\n", [], side="s") == "a&lt;b\n"


def test_overlapping_ranges_give_one_anchor_per_passage():
    html = highlight_html("abcdef", [(0, 4), (2, 6)], side="s")
    assert html == (
        '<mark class="c0" data-pair="0" id="s-0">ab</mark>'
        '<mark class="c0" data-pair="0">cd</mark>'
        '<mark class="c1" data-pair="1" id="s-1">ef</mark>'
    )


def test_ranges_beyond_the_text_are_clipped():
    assert highlight_html("abc", [(1, 99)], side="q") == (
        'a<mark class="c0" data-pair="0" id="q-0">bc</mark>'
    )
