"""The report's match overview, server side: the checked text once with every source's
passages in the source's colour, the sources with their shares beside it, stretches found in
two sources striped, excluded passages greyed (when the report marks them)."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from documents import selectors
from documents.highlight import highlight_html
from documents.views_overview import kinds_note, not_counted_note, overview_matches
from tests.documents.classroom import larger_class

pytestmark = pytest.mark.django_db


@pytest.fixture
def students(assignment, archive):
    return larger_class(assignment, archive)


def overview_data(page: str) -> dict:
    found = re.search(r'<script id="overview-data" type="application/json">(.*?)</script>', page)
    assert found
    return json.loads(found.group(1))


def test_every_source_is_highlighted_in_its_own_colour_at_once(browser, students):
    """hana copied gina's river paragraph and a lake paragraph that a news article and a
    blog reprinting it both hold: three sources, the lake striped in the first two colours."""
    hana = students["hana"]
    page = browser.get(f"/documents/{hana.id}/report/").content.decode()
    report = selectors.report_get(document=hana)
    titles = [s.title for s in report.sources]
    assert sorted(titles) == ["gina.txt", "lake-blog.txt", "regional-news.txt"]
    assert titles[2] == "gina.txt"  # the smallest share
    text = page.split('id="overview-text"')[1].split("</div>")[0]
    assert re.search(r'<mark class="c2"[^>]*id="o-2"', text)  # the river, gina's colour
    assert re.search(r'<mark class="c0 multi also-c1"[^>]*id="o-0"', text)  # the lake
    assert text.count('id="o-1"') == 1
    # Each source beside the text, its colour, share and a link to the side-by-side view.
    for number, source in enumerate(report.sources):
        assert f'<li class="c{number}" data-source="{source.document}">' in page
        assert f'href="?source={source.document}"' in page
        assert f"{source.similarity * 100:.1f}%" in page
    data = overview_data(page)
    assert [s["id"] for s in data["sources"]] == [s.document for s in report.sources]
    assert [
        {key: match[key] for key in ("source", "passage", "excluded")} for match in data["matches"]
    ] == [{"source": number, "passage": 0, "excluded": None} for number in range(3)]
    assert 'id="tab-side-by-side"' in page and "Match overview" in page


def test_a_chosen_source_still_opens_side_by_side(browser, students):
    hana, gina = students["hana"], students["gina"]
    page = browser.get(f"/documents/{hana.id}/report/?source={gina.id}").content.decode()
    assert 'id="q-0"' in page and 'id="s-0"' in page and 'id="overview-text"' not in page
    assert f'href="/documents/{hana.id}/report/" id="tab-overview"' in page


def test_a_document_without_sources_shows_its_text(browser, students):
    page = browser.get(f"/documents/{students['erin'].id}/report/").content.decode()
    assert "No copied passages were found." in page
    assert "Mountains are my favourite landscape" in page
    assert "<mark" not in page.split('id="overview-text"')[1].split("</div>")[0]


def test_a_stretch_found_in_two_sources_is_striped():
    html = highlight_html("abcdef", [(0, 4), (2, 6)], side="o", classes=["c0", "c3"])
    assert html == (
        '<mark class="c0" data-pair="0" id="o-0" data-pairs="0">ab</mark>'
        '<mark class="c0 multi also-c3" data-pair="0" id="o-1" data-pairs="0 1">cd</mark>'
        '<mark class="c3" data-pair="1" data-pairs="1">ef</mark>'
    )
    # Two passages of one source overlapping: one colour, no stripes.
    same = highlight_html("abcdef", [(0, 4), (2, 6)], side="o", classes=["c2", "c2"])
    assert "multi" not in same


@dataclasses.dataclass(frozen=True)
class ExcludedPassage(selectors.PassageView):
    excluded: str | None = None


def test_excluded_passages_are_greyed_and_come_after_the_counted_ones(students):
    """A report whose passages say why they are excluded (quote, bibliography, ...): greyed,
    listed after the counted passages so a stretch also found elsewhere keeps its colour."""
    report = selectors.report_get(document=students["hana"])
    first, second, third = report.sources
    quoted = dataclasses.replace(
        first,
        passages=tuple(
            ExcludedPassage(**{**dataclasses.asdict(p), "excluded": "quote"})
            for p in first.passages
        ),
    )
    ranges, classes, matches = overview_matches(
        dataclasses.replace(report, sources=(quoted, second, third))
    )
    assert classes == ["c1", "c2", "excluded"]
    in_order = (*second.passages, *third.passages, *first.passages)
    assert ranges == [(p.start, p.end) for p in in_order]
    assert [{key: m[key] for key in ("source", "passage", "excluded")} for m in matches] == [
        {"source": 1, "passage": 0, "excluded": None},
        {"source": 2, "passage": 0, "excluded": None},
        {"source": 0, "passage": 0, "excluded": "quote"},
    ]
    assert not_counted_note(quoted) == "1 not counted: quoted"
    assert not_counted_note(second) == ""
    # The lake, quoted in the first source and counted in the second: the second's colour.
    html = highlight_html(students["hana"].text, ranges, side="o", classes=classes)
    assert '<mark class="c1 multi also-excluded"' in html


def test_each_passage_says_its_kind_and_score_and_a_legend_explains_them(browser, students):
    """A teacher reads "Edited copy, 74% alike", not "edited" and "score 0.74": the overview's
    script gets each match's kind and score with the kinds' names, the source list names the
    kinds of its passages, and both views carry the legend."""
    hana = students["hana"]
    page = browser.get(f"/documents/{hana.id}/report/").content.decode()
    data = overview_data(page)
    report = selectors.report_get(document=hana)
    passages = [p for source in report.sources for p in source.passages]
    assert sorted(m["kind"] for m in data["matches"]) == sorted(p.kind for p in passages)
    assert all(0 < m["score"] <= 1 for m in data["matches"])
    assert data["kinds"]["edited"][0] == "Edited copy"
    assert data["reasons"]["quote"] == "quoted"
    assert 'id="kinds-legend"' in page and "copied word for word" in page
    assert f'passage <span class="kinds">({passages[0].kind})</span>' in page
    gina = students["gina"]
    side = browser.get(f"/documents/{hana.id}/report/?source={gina.id}").content.decode()
    passage = next(s for s in report.sources if s.document == gina.id).passages[0]
    assert f'<span class="kind kind-{passage.kind}"' in side
    assert f"· {round(passage.score * 100)}% alike" in side
    assert "score " not in side and 'id="kinds-legend"' in side


def test_a_source_names_the_kinds_of_its_passages_most_first():
    def source(*kinds: str) -> selectors.SourceView:
        passages = tuple(selectors.PassageView(0, 1, 0, 1, 1.0, kind=kind) for kind in kinds)
        return selectors.SourceView(1, "a.txt", "Essays", 0.5, passages)

    assert kinds_note(source("edited", "edited")) == "edited"
    assert kinds_note(source("verbatim", "edited", "edited")) == "2 edited, 1 verbatim"
    assert kinds_note(source("summary", "verbatim")) == "1 verbatim, 1 summary"


def test_a_long_text_is_shortened_around_its_passages(browser, assignment, students):
    from documents import views
    from tests.documents.classroom import FOREST, OWN
    from tests.documents.factories import processed

    filler = " ".join(f"Sentence {n} of my own long diary entry." for n in range(3000))
    long = processed(assignment, "long.txt", (filler + "\n\n" + FOREST + OWN["dave"]).encode())
    assert len(long.text) > views.LONG_TEXT
    page = browser.get(f"/documents/{long.id}/report/").content.decode()
    assert 'id="shortened"' in page and "characters without copied text" in page
    whole = browser.get(f"/documents/{long.id}/report/?full=1").content.decode()
    assert "characters without copied text" not in whole


@settings(max_examples=200)
@given(
    ranges=st.lists(st.tuples(st.integers(0, 35), st.integers(0, 35)), max_size=12),
    coloured=st.booleans(),
)
def test_each_character_is_marked_with_every_range_covering_it(ranges, coloured):
    """The sweep that finds the ranges covering each piece agrees with the definition: a
    character i is in range n when start <= i < end (ranges past the text are clipped)."""
    text = "abcdefghij" * 3
    classes = [f"c{n % 3}" for n in range(len(ranges))] if coloured else None
    html = highlight_html(text, ranges, side="o", classes=classes)
    html = re.sub(r'<span class="anchor"[^>]*></span>', "", html)
    marked: list[list[int]] = []
    pieces = re.finditer(r'<mark [^>]*data-pairs="([^"]*)">([^<]*)</mark>|([^<]+)', html)
    for found in pieces:
        owners = [int(n) for n in found.group(1).split()] if found.group(1) is not None else []
        marked.extend([owners] * len(found.group(2) or found.group(3) or ""))
    expected = [
        [n for n, (start, end) in enumerate(ranges) if start <= i < end] for i in range(len(text))
    ]
    assert marked == expected
