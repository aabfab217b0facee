"""Sentence splitting of normalised text (Low-IDF-Sig's "sentence splitter").

Works on the output of :func:`detection.normalize.normalize` (lower-cased, half-width, with
``"\\n"`` marking paragraph breaks) and returns ``(start, end)`` spans in that text.

- Paragraph breaks always end a sentence.
- Paragraphs containing Han characters are cut after Chinese sentence ends (。！？；… after
  width folding also ``!?;``) with any closing quotes/brackets, and after a half-width ``.``
  that is not inside a number or an abbreviation (reprints turn 。 into ``.``).
- Other paragraphs are cut by NLTK's *untrained* Punkt (``PunktSentenceTokenizer()``, no
  downloaded data): :func:`detection.punkt.punkt_spans` gives exactly its ``span_tokenize``
  spans but lets NLTK decide only the candidates whose answer is not fixed by the untrained
  model (numbers, initials, ellipses, ...), about 4 times cheaper than NLTK on pan13.  The older
  one-regex reimplementation of Punkt's rules (99.76% of sentence ends identical) is kept as
  ``english="punkt-rules"``.  Copy detection needs the *same* cut on both copies more than
  linguistically perfect cuts; both are deterministic.
- "Sentences" longer than ``max_chars`` (lists, navigation, run-on web text) are cut at
  content-defined points (see :func:`_cut_points`) into pieces of at least ``max_chars // 5``
  characters, so one huge block does not blur a passage's borders and a copy of part of it is
  cut the same way as the original.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable, Iterator
from itertools import accumulate
from typing import Final, Literal

from detection.punkt import punkt_spans

__all__ = ["split_sentences", "SENTENCES_VERSION", "EnglishSplitter"]

EnglishSplitter = Literal["punkt-rules", "punkt"]

#: Changes whenever :func:`split_sentences` can cut a text differently (s4: NLTK Punkt is the
#: default English splitter again, through :mod:`detection.punkt`).
SENTENCES_VERSION: Final = "s4"

_HAN: Final = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_PARAGRAPH: Final = re.compile(r"[^\n]+")
_CHINESE_END: Final = re.compile(r"(?:[。!?;…⋯]+|\.(?![0-9a-z.]))[”’\"'」』)\]】]*")
# Everything up to and including the leftmost _CHINESE_END match (the characters before it are
# those where _CHINESE_END cannot start: not an end mark, or a "." it refuses), or, when no end
# mark follows, the rest of the paragraph.
_CHINESE_PIECE: Final = re.compile(
    r"[^。!?;…⋯.\n]*(?:\.(?=[0-9a-z.])[^。!?;…⋯.\n]*)*"
    r"(?:[。!?;…⋯]+|\.(?![0-9a-z.]))[”’\"'」』)\]】]*"
    r"|[^\n]+"
)
_CLAUSE_MARK: Final = re.compile(r"[，、,:：]")
_WORD_START: Final = re.compile(r"(?<= )[^ ]+")
_WORD_CUT_MODULUS: Final = 8
# Punkt's candidates: end marks followed by whitespace (closing quotes/brackets stay with the
# sentence) or directly by other punctuation.
_LATIN_END: Final = re.compile(r"[.?!]+(?:[\"')\]}]+(?=\s|$)|(?=\s|$)|(?=[)\";}\]*:@'({\[!?]))")
_CLOSING: Final = "\"')]}"
_LEADING: Final = "(\"'`{[:;&#*@)}]-,"
_INITIAL: Final = re.compile(r"[^\W\d]\.")
_NUMBER: Final = re.compile(r"-?[.,]?\d[\d,.-]*\.?")
_PUNCTUATION: Final = frozenset(";:,.!?")


def _chinese_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Pieces ending after each ``_CHINESE_END`` match, and the rest: the lengths of
    ``_CHINESE_PIECE.findall`` pieces, without a match object per sentence."""
    stops = list(accumulate(map(len, _CHINESE_PIECE.findall(text, start, end)), initial=start))
    return list(zip(stops, stops[1:], strict=False))


def _punkt_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    for begin, finish in punkt_spans(text[start:end]):
        yield start + begin, start + finish


def _token_before(text: str, start: int, end: int) -> str:
    """The whitespace-delimited word ending at ``end``, without leading punctuation."""
    left = max(text.rfind(" ", start, end) + 1, start)
    return text[left:end].lstrip(_LEADING)


def _token_after(text: str, position: int, end: int) -> str:
    while position < end and text[position] == " ":
        position += 1
    stop = text.find(" ", position, end)
    return text[position : stop if stop >= 0 else end]


def _is_sentence_end(text: str, match: re.Match[str], cursor: int, end: int) -> bool:
    """Untrained Punkt's decision for one candidate (see the module docstring)."""
    marks = match.group().rstrip(_CLOSING)
    if "?" in marks or "!" in marks:
        return True
    if len(marks) > 1:
        return False  # an ellipsis
    token = _token_before(text, cursor, match.start() + 1)
    if _INITIAL.fullmatch(token) or _NUMBER.fullmatch(token):
        # The token after the marks: a closing bracket or quote counts (it is not lower case).
        following = _token_after(text, match.start() + len(marks), end)
        return not (not following or following[0].islower() or following in _PUNCTUATION)
    return True


def _punkt_rule_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    cursor = start
    for match in _LATIN_END.finditer(text, start, end):
        if not _is_sentence_end(text, match, cursor, end):
            continue
        yield cursor, match.end()
        cursor = match.end()
        while cursor < end and text[cursor] == " ":
            cursor += 1
    if cursor < end:
        yield cursor, end


def _cut_points(text: str, start: int, end: int, limit: int) -> list[int]:
    """Content-defined cut points inside an over-long ``text[start:end]``.

    Cuts depend only on the nearby text, never on where the sentence starts, so a copy that
    begins in the middle of a long sentence is cut at the same places as its source: after
    every clause mark, and — in stretches without any — before words whose CRC is 0 mod 8
    (about every 8th word, lists and navigation text).
    """
    points = [m.end() for m in _CLAUSE_MARK.finditer(text, start, end)]
    bounds = [start, *points, end]
    extra: list[int] = []
    for left, right in zip(bounds, bounds[1:], strict=False):
        if right - left > limit:
            extra.extend(
                m.start()
                for m in _WORD_START.finditer(text, left + 1, right)
                if zlib.crc32(m.group().encode("utf-8")) % _WORD_CUT_MODULUS == 0
            )
    return sorted({*points, *extra} - {start, end})


def _limit_length(text: str, start: int, end: int, limit: int) -> Iterator[tuple[int, int]]:
    if end - start <= limit:
        yield start, end
        return
    minimum = limit // 5
    piece_start = start
    for point in _cut_points(text, start, end, limit):
        if point - piece_start >= minimum:
            yield piece_start, point
            piece_start = point
    yield piece_start, end


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] == " ":
        start += 1
    while end > start and text[end - 1] == " ":
        end -= 1
    return start, end


def split_sentences(
    text: str, *, max_chars: int = 300, english: EnglishSplitter = "punkt"
) -> list[tuple[int, int]]:
    """Sentence spans ``(start, end)`` of normalised ``text``, in order, non-empty, disjoint.

    ``english`` picks the splitter of paragraphs without Han characters: ``"punkt"`` (NLTK's
    untrained PunktSentenceTokenizer, see :mod:`detection.punkt`) or ``"punkt-rules"`` (a
    one-regex approximation of its rules).
    """
    latin = _punkt_rule_spans if english == "punkt-rules" else _punkt_spans
    han = not text.isascii()  # an ASCII text has no Han paragraph to look for
    spans: list[tuple[int, int]] = []
    pieces: Iterable[tuple[int, int]]
    for paragraph in _PARAGRAPH.finditer(text):
        begin, finish = paragraph.span()
        if han and _HAN.search(text, begin, finish):
            pieces = _chinese_spans(text, begin, finish)
        else:
            pieces = latin(text, begin, finish)
        for piece_start, piece_end in pieces:
            if piece_end - piece_start <= max_chars:  # the common case, without generators
                if piece_start < piece_end and text[piece_start] != " " != text[piece_end - 1]:
                    spans.append((piece_start, piece_end))  # nothing to trim: no call
                    continue
                start, end = _trimmed(text, piece_start, piece_end)
                if start < end:
                    spans.append((start, end))
                continue
            for start, end in _limit_length(text, piece_start, piece_end, max_chars):
                start, end = _trimmed(text, start, end)
                if start < end:
                    spans.append((start, end))
    return spans
