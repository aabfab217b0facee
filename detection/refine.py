"""Word-level refinement of passage borders, when both texts are at hand.

Sequence matching works on whole sentences, so a passage starts and ends at sentence
borders even when the copy begins or ends in the middle of a sentence (PAN's artificial cases,
web pages quoting half a sentence).  :func:`refine_alignments` moves each of the four borders to
where the copied *words* begin and end, using the sentence that defines the border and the
sentence it was matched with (:class:`detection.align.Border`):

1. anchor: the first (for a head; last for a tail) word trigram of the border sentence that
   also occurs in its partner — this drops the uncopied head (tail) of the border sentence;
2. extension: from the anchor, walk outwards through a banded word alignment (X-drop, as BLAST
   extends its seeds: agreeing words +1, differing, dropped or inserted words -1) while the
   score stays within ``_DROP`` of its best, up to ``_REACH`` words, and end at the best — this
   adds the copied tail (head) of a neighbouring sentence that was too short a fragment, or too
   edited, to be a copied sentence on its own, across dropped particles and swapped words;
3. punctuation right after the last word (before the first word) joins the passage.

Used by :func:`detection.compare` and the PAN command; :func:`detection.detect` has no texts
(only an index), so the app gets sentence borders unless it calls this with both texts.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from detection.align import Alignment, Border, follows
from detection.model import Passage
from detection.normalize import normalized_once
from detection.words import token_spans

__all__ = ["WordView", "word_view", "refine_alignments", "join_adjacent"]

_REACH = 120  # words an extension may walk past the sentence border
_DROP = 2  # how far below its best score an extension may fall before it stops
_BAND = 2  # words one side may run ahead of the other (drops and insertions)
_N = 3  # anchor n-gram length


@dataclass(frozen=True, slots=True)
class WordView:
    """Words of ``text`` with their original ``starts``/``ends`` (for border refinement).

    Compact for long texts: equal words are one ``str`` object, offsets are machine integers
    (``array('q')``, which reads as Python ints)."""

    text: str
    words: tuple[str, ...]
    starts: Sequence[int]
    ends: Sequence[int]

    def word_range(self, span: tuple[int, int]) -> tuple[int, int]:
        """Indices ``[first, last)`` of the words starting inside the character ``span``."""
        return bisect_left(self.starts, span[0]), bisect_left(self.starts, span[1])


# Characters of normalised text tokenised at a time by `word_view`, cut at a whitespace
# character (no word crosses one): a text's words are then made a chunk at a time, and equal
# words of all chunks share one str, instead of millions of new str objects at once.
_CHUNK_CHARS = 1 << 20
_SPACE = re.compile(r"\s")


def word_view(text: str) -> WordView:
    """The words of ``text`` with character offsets into ``text``."""
    normalized, offsets = normalized_once(text)
    shared: dict[str, str] = {}
    words: list[str] = []
    starts = array("q")
    begin = 0
    while begin < len(normalized):
        space = _SPACE.search(normalized, begin + _CHUNK_CHARS)
        end = space.start() if space is not None else len(normalized)
        found, found_starts = token_spans(normalized[begin:end])
        words += [shared.setdefault(word, word) for word in found]
        starts.extend([begin + start for start in found_starts])
        begin = end
    del shared
    first = np.frombuffer(starts, dtype=np.int64)
    last = first + np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    if offsets is not None:
        first, last = offsets[first], offsets[last - 1] + 1
    return WordView(text, tuple(words), _machine(first), _machine(last))


def _machine(values: np.ndarray) -> array[int]:
    found = array("q")
    found.frombytes(values.astype(np.int64).tobytes())
    return found


def _walk(q: Sequence[str], s: Sequence[str], i: int, j: int, step: int) -> int:
    """How many words of ``q`` beyond ``q[i]`` the copy continues, walking from the shared
    words ``(q[i], s[j])`` in direction ``step``.

    An X-drop extension (as BLAST extends its seeds) on a banded word alignment: an agreeing
    word scores +1, a differing, dropped or inserted word -1 (a swap of two words is a drop and
    an insertion around an agreeing word); the walk stops once every cell of a row is more than
    ``_DROP`` below the best score, and the copy ends at the best score's word. So edits are
    crossed when the words after them agree again, and the border never lands on an edit.
    """
    q_left = min((len(q) - 1 - i) if step > 0 else i, _REACH)
    width = min((len(s) - 1 - j) if step > 0 else j, q_left + _BAND) + 1
    missing = -(1 << 30)
    previous = [-b if b <= _BAND else missing for b in range(width)]  # no word of q taken
    best, best_a = 0, 0
    for a in range(1, q_left + 1):
        word = q[i + step * a]
        row = [missing] * width
        for b in range(max(0, a - _BAND), min(a + _BAND + 1, width)):
            score = previous[b] - 1  # q's word dropped
            if b:
                agree = word == s[j + step * b]
                score = max(score, previous[b - 1] + (1 if agree else -1), row[b - 1] - 1)
            row[b] = score
        top = max(row)
        if top > best:
            best, best_a = top, a
        if top < best - _DROP:
            break
        previous = row
    return best_a


def _anchor(own: WordView, other: WordView, border: Border, head: bool) -> tuple[int, int] | None:
    """Word indices (in ``own``, in ``other``) of the first/last shared trigram."""
    first, last = own.word_range(border.own)
    other_first, other_last = other.word_range(border.partner)
    grams: dict[tuple[str, ...], int] = {}
    for j in range(other_first, other_last - _N + 1):
        key = tuple(other.words[j : j + _N])
        if head:
            grams.setdefault(key, j)
        else:
            grams[key] = j
    positions = range(first, last - _N + 1)
    for i in positions if head else reversed(positions):
        found = grams.get(tuple(own.words[i : i + _N]))
        if found is not None:
            return (i, found) if head else (i + _N - 1, found + _N - 1)
    return None


_OPENING = frozenset({"Ps", "Pi"})  # opening brackets and quotes belong to the next word


def _is_punctuation(ch: str) -> bool:
    return unicodedata.category(ch)[0] == "P"


def _head(own: WordView, other: WordView, border: Border) -> int | None:
    """Refined start (in ``own``'s text) of a passage head."""
    anchor = _anchor(own, other, border, head=True)
    if anchor is None:
        return None
    back = _walk(own.words, other.words, anchor[0], anchor[1], -1)
    start = own.starts[anchor[0] - back]
    while start > 0 and unicodedata.category(own.text[start - 1]) in _OPENING:
        start -= 1
    return start


def _tail(own: WordView, other: WordView, border: Border) -> int | None:
    """Refined end (in ``own``'s text) of a passage tail."""
    anchor = _anchor(own, other, border, head=False)
    if anchor is None:
        return None
    ahead = _walk(own.words, other.words, anchor[0], anchor[1], 1)
    end = own.ends[anchor[0] + ahead]
    while end < len(own.text) and _is_punctuation(own.text[end]):
        end += 1
    return end


def _refined(item: Alignment, query: WordView, source: WordView) -> Passage:
    p = item.passage
    start = _head(query, source, item.query_head)
    end = _tail(query, source, item.query_tail)
    source_start = _head(source, query, item.source_head)
    source_end = _tail(source, query, item.source_tail)
    core = item.core
    # An end extended by an edge pair (`detection.align`) whose sentences share no three words
    # in a row is not taken: a neighbour sharing one common chain by chance is no copy.
    if core is not None and (start is None or source_start is None):
        p = replace(p, start=core.passage.start, source_start=core.passage.source_start)
        start = _head(query, source, core.query_head)
        source_start = _head(source, query, core.source_head)
    if core is not None and (end is None or source_end is None):
        p = replace(p, end=core.passage.end, source_end=core.passage.source_end)
        end = _tail(query, source, core.query_tail)
        source_end = _tail(source, query, core.source_tail)
    if start is not None and end is not None and start < end:
        p = replace(p, start=start, end=end)
    if source_start is not None and source_end is not None and source_start < source_end:
        p = replace(p, source_start=source_start, source_end=source_end)
    return p


def join_adjacent(passages: Sequence[Passage], join_chars: int) -> list[Passage]:
    """Join passages that continue each other in order on both sides (one copy found in
    pieces because a sentence between them was too noisy to match)."""
    joined: list[Passage] = []
    for passage in sorted(passages, key=lambda p: (p.source, p.start, p.end)):
        last = joined[-1] if joined else None
        if last is not None and follows(last, passage, join_chars):
            joined[-1] = replace(
                last,
                end=max(last.end, passage.end),
                source_start=min(last.source_start, passage.source_start),
                source_end=max(last.source_end, passage.source_end),
                score=max(last.score, passage.score),
            )
        else:
            joined.append(passage)
    return sorted(joined, key=lambda p: (p.start, p.end, p.source, p.source_start))


def _longest_per_region(passages: Sequence[Passage], min_chars: int) -> list[Passage]:
    """Drop passages shorter than ``min_chars`` on a side, and of passages of one source
    overlapping on the query side keep the longest (as :mod:`detection.align` does before)."""
    kept: list[Passage] = []
    ranked = sorted(passages, key=lambda p: (-(p.end - p.start), p.start))
    for p in ranked:
        if p.end - p.start < min_chars or p.source_end - p.source_start < min_chars:
            continue
        if all(k.source != p.source or p.end <= k.start or k.end <= p.start for k in kept):
            kept.append(p)
    return sorted(kept, key=lambda p: (p.start, p.end, p.source, p.source_start))


def refine_alignments(
    query: WordView,
    sources: Mapping[int, WordView],
    alignments: Sequence[Alignment],
    *,
    join_chars: int = 0,
    min_chars: int = 0,
) -> list[Passage]:
    """Passages with word-exact borders (a side stays unchanged where no anchor is found),
    joined where they continue each other within ``join_chars`` characters; refined
    passages shorter than ``min_chars`` are dropped, and so are alignments resting on one
    sentence pair, or on weak pairs only, whose words do not agree (`_copies_words`)."""
    refined = []
    for item in alignments:
        source = sources.get(item.passage.source)
        if source is None:
            refined.append(item.passage)
        elif not (item.weak or item.strength == 1) or _copies_words(item, query, source):
            refined.append(_refined(item, query, source))
    return _longest_per_region(join_adjacent(refined, join_chars), min_chars)


def _copies_words(item: Alignment, query: WordView, source: WordView) -> bool:
    """Whether an alignment's two sides share a word trigram, as copied text does.

    Asked of weak alignments: sentences with nothing but their opening chain in common
    ("只是由于…") do not share one; a copied list of one-word lines does, across its lines.
    And of alignments resting on one sentence pair: two sentences of an archive can share
    two short chains and a quarter of their features by accident ("…selected biographies of
    well-known people" / "…a novel proof of a well-known theorem"), while a copied sentence
    keeps three words in a row even with a quarter of its words edited."""
    p = (item.core or item).passage  # not the sentences its edges were extended by
    whole = Border((p.start, p.end), (p.source_start, p.source_end))
    return _anchor(query, source, whole, head=True) is not None
