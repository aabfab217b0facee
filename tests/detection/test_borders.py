"""Word-level query borders of edited passages (detection.borders)."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from detection.borders import word_borders
from detection.model import Passage
from detection.refine import word_view
from detection.seeding import text_units

SOURCE = (
    "Glaciers retreat quickly across northern valleys. "
    "Meltwater carves deep channels through ancient granite. "
    "Farmers downstream depend on seasonal runoff for irrigation."
)
OWN_HEAD = (
    "My summer holiday started with a long train journey to visit cousins near the coast, where "
)
HEAD = "glaciers retreat quickly across northern valleys. "
MIDDLE = "Meltwater carves deep channels through ancient granite. "
TAIL = "Farmers downstream depend on seasonal runoff for irrigation"
OWN_TAIL = ", which reminded me of grandmother's orchard, her wooden ladder and painted barn doors."
QUERY = OWN_HEAD + HEAD + MIDDLE + TAIL + OWN_TAIL
COPY_START = len(OWN_HEAD)
COPY_END = len(OWN_HEAD + HEAD + MIDDLE + TAIL)


def _borders(passage: Passage, text: str = QUERY, source: str = SOURCE) -> Passage:
    (moved,) = word_borders(
        [passage],
        word_view(text),
        text_units(text, min_terms=3),
        text_units(source, min_terms=3),
        reach=3,
        grow=2.0,
        shrink=6.0,
    )
    return moved


def _edited(start: int, end: int) -> Passage:
    return Passage(0, start, end, 0, len(SOURCE), 0.6, "edited")


def test_start_grows_into_the_unit_where_the_copy_begins() -> None:
    # The units align from the second query sentence; the copy began inside the first.
    found = _borders(_edited(QUERY.index("Meltwater"), COPY_END))
    assert found.start == COPY_START


def test_start_shrinks_past_the_writers_own_words() -> None:
    found = _borders(_edited(0, COPY_END))
    assert found.start == COPY_START


def test_end_shrinks_past_the_writers_own_words() -> None:
    found = _borders(_edited(COPY_START, len(QUERY)))
    assert found.end == COPY_END


def test_a_few_unmatched_words_are_not_proof_enough_to_shrink() -> None:
    text = "Yesterday " + HEAD + MIDDLE + TAIL + "."
    found = _borders(_edited(0, len(text)), text)
    assert (found.start, found.end) == (0, len(text))


def test_a_copy_in_swapped_order_keeps_its_start() -> None:
    # The query copies the source's last sentence first: words unlike those around the
    # source start, but copied from the passage's source side all the same.
    source = (
        SOURCE + " Engineers monitor the dams every spring. Tourists photograph icebergs "
        "calving into the fjord. Scientists measure remaining ice thickness with airborne radar "
        "pulses each winter."
    )
    text = (
        "Scientists measure remaining ice thickness with airborne radar pulses each winter. "
        + HEAD
        + MIDDLE
        + TAIL
        + "."
    )
    found = _borders(Passage(0, 0, len(text), 0, len(source), 0.6, "edited"), text, source)
    assert (found.start, found.end) == (0, len(text))


def test_verbatim_and_summary_passages_keep_their_borders() -> None:
    for kind in ("verbatim", "summary"):
        passage = replace(_edited(0, len(QUERY)), kind=kind)
        assert _borders(passage) == passage


def test_source_side_score_and_kind_do_not_change() -> None:
    passage = _edited(0, len(QUERY))
    found = _borders(passage)
    assert (found.source, found.source_start, found.source_end, found.score, found.kind) == (
        passage.source,
        passage.source_start,
        passage.source_end,
        passage.score,
        passage.kind,
    )


@settings(max_examples=150, deadline=None)
@given(
    st.integers(min_value=0, max_value=len(QUERY) - 1),
    st.integers(min_value=1, max_value=len(QUERY)),
    st.sampled_from(["edited", "verbatim", "summary"]),
)
def test_borders_stay_inside_the_text_and_near_the_old_ones(
    start: int, size: int, kind: str
) -> None:
    end = min(len(QUERY), start + size)
    passage = replace(_edited(start, end), kind=kind)  # type: ignore[arg-type]
    found = _borders(passage)
    assert 0 <= found.start < found.end <= len(QUERY)
    if kind != "edited":
        assert found == passage
    spans = text_units(QUERY, min_terms=3).spans
    starts = [a for a, _ in spans]
    first = max(0, bisect_right(starts, start) - 1)
    last = max(0, bisect_right(starts, end - 1) - 1)
    # a border moves at most into the unit beyond its own, and never past the other border
    assert spans[max(0, first - 1)][0] <= found.start <= passage.end
    assert passage.start <= found.end <= max(end, spans[min(len(spans) - 1, last + 1)][1])
