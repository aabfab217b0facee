"""Sentence splitting of normalised text (the "sentence splitter" subsystem of seed 003).

Works on the output of :func:`detection.normalize.normalize` (lower-cased, half-width, with
``"\\n"`` marking paragraph breaks) and returns ``(start, end)`` spans in that text.

- Paragraph breaks always end a sentence.
- Paragraphs containing Han characters are cut after Chinese sentence ends (。！？；… after
  width folding also ``!?;``) with any closing quotes/brackets, and after a half-width ``.``
  that is not inside a number or an abbreviation (reprints turn 。 into ``.``).
- Other paragraphs go to NLTK Punkt, untrained (no downloaded data).  Copy detection needs the
  *same* cut on both copies more than linguistically perfect cuts, and Punkt is deterministic.
- "Sentences" longer than ``max_chars`` (lists, navigation, run-on web text) are cut at the last
  clause mark (，、,:：) or space before the limit, so one huge block does not blur a passage's
  borders.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from nltk.tokenize.punkt import PunktSentenceTokenizer

__all__ = ["split_sentences", "SENTENCES_VERSION"]

#: Changes whenever :func:`split_sentences` can cut a text differently.
SENTENCES_VERSION: Final = "s1"

_HAN: Final = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_PARAGRAPH: Final = re.compile(r"[^\n]+")
_CHINESE_END: Final = re.compile(r"(?:[。!?;…⋯]+|\.(?![0-9a-z.]))[”’\"'」』)\]】]*")
_CLAUSE_MARK: Final = re.compile(r"[，、,:：]")
_PUNKT: Final = PunktSentenceTokenizer()


def _chinese_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    cursor = start
    for match in _CHINESE_END.finditer(text, start, end):
        yield cursor, match.end()
        cursor = match.end()
    if cursor < end:
        yield cursor, end


def _punkt_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    for begin, finish in _PUNKT.span_tokenize(text[start:end]):
        yield start + begin, start + finish


def _cut_point(text: str, start: int, limit: int) -> int:
    """Where to cut ``text[start:]`` so the first part is at most ``limit`` characters."""
    window_start = start + limit // 2
    window_end = start + limit
    marks = [m.end() for m in _CLAUSE_MARK.finditer(text, window_start, window_end)]
    if marks:
        return marks[-1]
    space = text.rfind(" ", window_start, window_end)
    return space + 1 if space > 0 else window_end


def _limit_length(text: str, start: int, end: int, limit: int) -> Iterator[tuple[int, int]]:
    while end - start > limit:
        cut = _cut_point(text, start, limit)
        yield start, cut
        start = cut
    yield start, end


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] == " ":
        start += 1
    while end > start and text[end - 1] == " ":
        end -= 1
    return start, end


def split_sentences(text: str, *, max_chars: int = 300) -> list[tuple[int, int]]:
    """Sentence spans ``(start, end)`` of normalised ``text``, in order, non-empty, disjoint."""
    spans: list[tuple[int, int]] = []
    for paragraph in _PARAGRAPH.finditer(text):
        begin, finish = paragraph.span()
        if _HAN.search(text, begin, finish):
            pieces = _chinese_spans(text, begin, finish)
        else:
            pieces = _punkt_spans(text, begin, finish)
        for piece_start, piece_end in pieces:
            for start, end in _limit_length(text, piece_start, piece_end, max_chars):
                start, end = _trimmed(text, start, end)
                if start < end:
                    spans.append((start, end))
    return spans
