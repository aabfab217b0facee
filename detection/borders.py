"""Word-level query borders of edited passages.

The disguised stage (:mod:`detection.disguise`) aligns sentence units, so an edited
passage starts and ends at sentence borders, while a pasted copy starts and ends inside
sentences: a writer joins it onto a sentence of their own, a copy begins in the middle of
a source sentence, and the unit splitter cannot see where. :func:`word_borders` moves each
query border of an edited passage, word by word, within its edge unit and the unit beyond
it, to where the words on the copy's side best match the terms of the source units around
the passage's source border: each term scores +1 when it is among them and -1 when it is
not, and the border goes to the position with the largest sum over the words between it and
the far end of that stretch (a maximum-sum suffix or prefix).

It moves only for a clear gain: ``grow`` to take in more words (a run of words the source
holds, by at least that many more matched than unmatched terms), ``shrink`` to give words
up, and then matched against the terms of the passage's whole source side (a random edit
leaves copied words unmatched in a row, and a copy of two source pieces in swapped order
starts with the later one, so giving words up needs more proof). Verbatim passages keep
their word-exact borders; a summary's words are not the source's. Only the query side
moves: on the source side the same rule found no more than the units already give
(docs/detection.md).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import NamedTuple

from detection.lexicon import terms
from detection.model import Passage
from detection.refine import WordView
from detection.seeding import Units

__all__ = ["word_borders"]


class _Margins(NamedTuple):
    grow: float
    shrink: float


_Finder = Callable[[WordView, tuple[int, int], set[str], int, _Margins], int]


def word_borders(
    passages: Sequence[Passage],
    query: WordView,
    query_units: Units,
    source: Units,
    *,
    reach: int,
    grow: float,
    shrink: float,
) -> list[Passage]:
    """``passages`` (of one source) with the query borders of the edited ones at word level
    (module docstring): ``reach`` source units on the inner side of the source border (and
    one on the outer) hold the terms a border's words are matched against."""
    if not passages or not len(query_units) or not len(source):
        return list(passages)
    margins = _Margins(grow, shrink)
    starts = [span[0] for span in query_units.spans]
    source_starts = [span[0] for span in source.spans]
    moved = []
    for passage in passages:
        if passage.kind != "edited":
            moved.append(passage)
            continue
        first = _unit_at(starts, passage.start)
        last = _unit_at(starts, passage.end - 1)
        source_first = _unit_at(source_starts, passage.source_start)
        source_last = _unit_at(source_starts, passage.source_end - 1)
        head = _terms_of(source, source_first - 1, source_first + reach)
        tail = _terms_of(source, source_last - reach, source_last + 1)
        spans = query_units.spans
        whole = _terms_of(source, source_first - 1, source_last + 1)
        region = spans[max(0, first - 1)][0], min(passage.end, spans[first][1])
        start = _moved(_start, query, region, (head, whole), passage.start, margins)
        region = max(passage.start, spans[last][0]), spans[min(len(spans) - 1, last + 1)][1]
        end = _moved(_end, query, region, (tail, whole), passage.end, margins)
        moved.append(replace(passage, start=start, end=end) if start < end else passage)
    return moved


def _moved(
    border: _Finder,
    view: WordView,
    region: tuple[int, int],
    wanted: tuple[set[str], set[str]],
    current: int,
    margins: _Margins,
) -> int:
    """A border grown by the terms near the source border (``wanted[0]``), else shrunk by
    those of the whole source side (``wanted[1]``): words are given up only when nothing
    the passage copies holds them (a copy of two source pieces in swapped order starts with
    the later piece)."""
    grown = border(view, region, wanted[0], current, _Margins(margins.grow, math.inf))
    if grown != current:
        return grown
    return border(view, region, wanted[1], current, _Margins(math.inf, margins.shrink))


def _unit_at(starts: Sequence[int], position: int) -> int:
    return max(0, min(len(starts) - 1, bisect_right(starts, position) - 1))


def _terms_of(units: Units, first: int, last: int) -> set[str]:
    found: set[str] = set()
    for unit in range(max(0, first), min(len(units) - 1, last) + 1):
        found.update(units.terms[unit])
    return found


def _scores(view: WordView, region: tuple[int, int], wanted: set[str]) -> list[tuple[int, float]]:
    """(word index, +1 or -1) of the words starting in ``region`` that have a term."""
    first, last = view.word_range(region)
    found = []
    for index in range(first, last):
        word_terms = terms([view.words[index]])
        if word_terms:
            found.append((index, 1.0 if word_terms[0] in wanted else -1.0))
    return found


def _start(
    view: WordView, region: tuple[int, int], wanted: set[str], current: int, margins: _Margins
) -> int:
    """The start in ``region`` with the largest sum of scores from it to the region's end."""
    scored = _scores(view, region, wanted)
    return _border([(view.starts[i], score) for i, score in reversed(scored)], current, margins)


def _end(
    view: WordView, region: tuple[int, int], wanted: set[str], current: int, margins: _Margins
) -> int:
    """The end in ``region`` with the largest sum of scores from the region's start (a start
    mirrored: positions negated)."""
    scored = _scores(view, region, wanted)
    return -_border([(-view.ends[i], score) for i, score in scored], -current, margins)


def _border(steps: Sequence[tuple[int, float]], current: int, margins: _Margins) -> int:
    """Of ``steps`` (border position and its word's score, walking outwards: positions
    fall), the position with the largest running sum, when it beats ``current``'s by the
    margin for its direction (grow: further out, shrink: further in)."""
    total = at_current = 0.0
    best, best_sum = current, float("-inf")
    for position, score in steps:
        total += score
        if position >= current:
            at_current = total
        if total > best_sum:
            best, best_sum = position, total
    if best == current:
        return current
    needed = margins.grow if best < current else margins.shrink
    return best if best_sum - at_current >= needed else current
