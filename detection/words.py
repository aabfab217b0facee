"""Word tokenisation for Chinese, English and mixed text, with offsets.

Han runs go to rjieba (the Rust port of jieba with the same dictionary; measured in
docs/detection.md), everything else to one precompiled regular expression: Latin words (with
inner apostrophes) and numbers (with inner ``.``/``,`` such as ``3.14`` or ``1,000``).  Splitting
Han from the rest *before* segmentation keeps a sentence's English words identical whether it
appears in an English or a Chinese document, so copies match across mixed texts.
Punctuation and whitespace are not tokens.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from itertools import accumulate, chain
from typing import Final, NamedTuple

import rjieba

try:
    from detection import _lisfeatures
except ImportError:  # not built (setup.py build_ext): the Python loops below
    _lisfeatures = None  # type: ignore[assignment]

__all__ = ["Token", "tokenize", "token_spans", "sentence_words", "WORDS_VERSION"]

#: Changes whenever :func:`tokenize` can cut a text differently.
WORDS_VERSION: Final = "w1-rjieba-0.2.2"

_HAN: Final = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff"
_ANY_HAN: Final = re.compile(f"[{_HAN}]")
_PIECE: Final = re.compile(
    rf"(?P<han>[{_HAN}]+)"
    rf"|(?P<word>[^\W\d_{_HAN}]+(?:['’][^\W\d_{_HAN}]+)*)"
    r"|(?P<number>\d+(?:[.,]\d+)*)"
)

# _PIECE for findall: (Han run, "") or ("", other piece) pairs, where the other piece may also
# be the separator that _han_sentence_words puts between sentences (a control character, never
# part of a word); and without the Han alternative and groups for text without Han characters
# (findall returns the words).
_SENTENCE_END: Final = "\x00"
_SPLIT_PIECE: Final = re.compile(
    rf"([{_HAN}]+)|([^\W\d_{_HAN}]+(?:['’][^\W\d_{_HAN}]+)*|\d+(?:[.,]\d+)*|\x00)"
)
_LATIN_PIECE: Final = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\d+(?:[.,]\d+)*")
# _LATIN_PIECE for ASCII text, where [^\W\d_] is [a-zA-Z] and \d is [0-9]: plain ranges are
# tested much faster than Unicode categories (about a third of the findall time).  Possessive
# repeats (the first greedy attempt always succeeds, so nothing is ever given back) spare the
# engine its backtracking bookkeeping: another sixth.
_ASCII_PIECE: Final = re.compile(r"[a-zA-Z]++(?:'[a-zA-Z]++)*+|[0-9]++(?:[.,][0-9]++)*+")


_Pieces = list[tuple[str, str]]
_Cut = tuple[list[str], list[tuple[int, int]], list[int]]


class Token(NamedTuple):
    """One word: ``text == source[start:end]`` of the string given to :func:`tokenize`.

    A NamedTuple rather than a dataclass because analyze() makes millions of them.
    """

    text: str
    start: int
    end: int


def token_spans(text: str) -> tuple[list[str], list[int]]:
    """Words of ``text`` and their start offsets (the fast form used by the detector)."""
    if not _ANY_HAN.search(text):
        matches = list(_PIECE.finditer(text))
        return [m.group() for m in matches], [m.start() for m in matches]
    words: list[str] = []
    starts: list[int] = []
    cut = rjieba.cut
    for match in _PIECE.finditer(text):
        if match.lastgroup == "han":
            pieces = cut(match.group())
            words += pieces
            starts += accumulate(map(len, pieces[:-1]), initial=match.start())
        else:
            words.append(match.group())
            starts.append(match.start())
    return words, starts


def tokenize(text: str) -> list[Token]:
    """Cut ``text`` into words (jieba dictionary for Han, regex for the rest) with offsets."""
    words, starts = token_spans(text)
    return [Token(w, s, s + len(w)) for w, s in zip(words, starts, strict=True)]


def _joins(text: str, position: int) -> bool:
    """Whether a word could run across ``position``: letters and digits join each other,
    apostrophes join letters, ``.`` and ``,`` join digits (conservative: a superset)."""
    if position <= 0 or position >= len(text):
        return False
    before, after = text[position - 1], text[position]
    if after in " \n" or before in " \n":  # the common case: nothing joins a space or break
        return False
    if before.isalnum():
        return after.isalnum() or after in "'’" or (after in ".," and before.isdigit())
    if before in "'’":
        return after.isalnum()
    return before in ".," and after.isdigit()


def _assigned(
    text: str, spans: Sequence[tuple[int, int]]
) -> tuple[list[str], list[tuple[int, int]], list[int]]:
    """The general case: words of the whole text, each given to the span its start is in."""
    words, starts = token_spans(text)
    bounds: list[tuple[int, int]] = []
    kept: list[int] = []
    first = 0
    for number, (span_start, span_end) in enumerate(spans):
        first = bisect_left(starts, span_start, first)
        last = bisect_left(starts, span_end, first)
        if last > first:
            bounds.append((first, last))
            kept.append(number)
        first = last
    return words, bounds, kept


def _latin_words(text: str, spans: Sequence[tuple[int, int]]) -> list[list[str]] | None:
    """Words of each span of Han-free text, or None when a word might start before a span
    and outside the previous one (then only the whole-text scan knows)."""
    pattern = _ASCII_PIECE if text.isascii() else _LATIN_PIECE
    findall, finditer = pattern.findall, pattern.finditer
    per_span: list[list[str]] = []
    resume = 0  # where the whole-text scan resumes: never inside a word
    # Padded so that the character before and after every span exists: a space or line break
    # on either side of a border means _joins is False there, tested without a call.
    padded = " " + text + " "
    for start, end in spans:
        if resume <= start and padded[start] not in " \n" and _joins(text, start):
            return None
        start = max(start, resume)
        # The last word may run on past the span: it stays here.
        if padded[end + 1] not in " \n" and _joins(text, end):
            found: list[str] = []
            for match in finditer(text, start):
                if match.start() >= end:
                    break
                found.append(match.group())
                resume = match.end()
            per_span.append(found)
        else:
            per_span.append(findall(text, start, end) if start < end else [])
            resume = max(resume, end)
    return per_span


def _latin_sentence_words(text: str, spans: Sequence[tuple[int, int]]) -> _Cut | None:
    """:func:`sentence_words` of Han-free text by :func:`_latin_words`, or None when only the
    whole-text scan knows (the fallback and the reference of ``_lisfeatures.ascii_words``)."""
    per_span = _latin_words(text, spans)
    if per_span is None:
        return None
    bounds: list[tuple[int, int]] = []
    kept: list[int] = []
    first = 0
    for number, found in enumerate(per_span):
        if found:
            bounds.append((first, first + len(found)))
            kept.append(number)
            first += len(found)
    return list(chain.from_iterable(per_span)), bounds, kept


# Characters after which _joins is always False (not alphanumeric, not an apostrophe, "." or
# ","): the usual last characters of Chinese sentences, tested without a call.
_ENDS_WORDS: Final = frozenset(' \n。!?;:…⋯"”」』)]】、')


def _any_border_joins(text: str, spans: Sequence[tuple[int, int]]) -> bool:
    """Whether a word might run across the start or end of one of ``spans``."""
    padded = " " + text  # padded[p] is the character before position p
    ends = _ENDS_WORDS
    for start, end in spans:
        if padded[start] not in ends and _joins(text, start):
            return True
        if padded[end] not in ends and _joins(text, end):
            return True
    return False


def _han_runs_py(pieces: _Pieces) -> str:
    """Every Han run of ``pieces`` followed by a space: what rjieba cuts (the reference of
    ``_lisfeatures.han_runs``)."""
    runs = [run for run, _ in pieces if run]
    return " ".join(runs) + " " if runs else ""


def _han_words_py(pieces: _Pieces, tokens: list[str]) -> _Cut:
    """Words, bounds and kept span numbers from the pieces and rjieba's tokens of their runs
    (the fallback and the reference of ``_lisfeatures.han_words``, its C version)."""
    index = tokens.index
    words: list[str] = []
    bounds: list[tuple[int, int]] = []
    kept: list[int] = []
    position = first = number = 0
    for run, other in pieces:
        if run:
            stop = index(" ", position)
            words += tokens[position:stop]
            position = stop + 1
        elif other == _SENTENCE_END:
            if len(words) > first:
                bounds.append((first, len(words)))
                kept.append(number)
                first = len(words)
            number += 1
        else:
            words.append(other)
    return words, bounds, kept


#: Whether _han_sentence_words runs its loop in C and ASCII text is cut in C (the extension is
#: built).
NATIVE_WORDS: Final = _lisfeatures is not None
_han_runs = _lisfeatures.han_runs if _lisfeatures is not None else _han_runs_py
_han_words = _lisfeatures.han_words if _lisfeatures is not None else _han_words_py
#: sentence_words of ASCII text in C (else _latin_sentence_words).
_ascii_words = _lisfeatures.ascii_words if _lisfeatures is not None else None


def _han_sentence_words(text: str, spans: Sequence[tuple[int, int]]) -> _Cut | None:
    """:func:`sentence_words` of text with Han characters, or None when a word might cross a
    span border (or the text holds the separator).

    The spans are joined with a separator that no word contains and cut by one ``findall``
    (not one call per sentence); all Han runs of the document go to rjieba in one call,
    separated by a space: jieba cuts every run between two separators on its own (as
    :func:`token_spans` cuts each run), without the per-call overhead.  The loop over the
    pieces runs in C when the extension is built (:data:`NATIVE_WORDS`).
    """
    if _SENTENCE_END in text or _any_border_joins(text, spans):
        return None
    joined = _SENTENCE_END.join([text[start:end] for start, end in spans]) + _SENTENCE_END
    pieces = _SPLIT_PIECE.findall(joined)
    runs = _han_runs(pieces)
    tokens = rjieba.cut(runs) if runs else []  # each run ends with a " "
    return _han_words(pieces, tokens)


def sentence_words(
    text: str, spans: Sequence[tuple[int, int]]
) -> tuple[list[str], list[tuple[int, int]], list[int]]:
    """Words of ``text`` by sentence: a word list, the range ``(first, last)`` in it of each
    span that has words, and the indices of those spans (``spans`` ordered, disjoint).

    Exactly the words of :func:`token_spans` given to the span their start lies in (words
    outside every span are left out).  Text without Han characters is cut span by span with
    one C-level ``findall`` each, without a match object per word (3 times faster on English
    text); a word running across a span border is followed with ``finditer``.  Han runs are
    segmented in one rjieba call per document.  With the extension built, ASCII text is cut
    by ``_lisfeatures.ascii_words`` (the same matches scanned in C) and the loop after rjieba
    runs in C too (:data:`NATIVE_WORDS`).
    """
    if not text.isascii():
        cut = (
            _han_sentence_words(text, spans)
            if _ANY_HAN.search(text)
            else _latin_sentence_words(text, spans)
        )
    elif _ascii_words is None:
        cut = _latin_sentence_words(text, spans)
    else:
        native = _ascii_words(text, spans)
        cut = _latin_sentence_words(text, spans) if native is NotImplemented else native
    return cut if cut is not None else _assigned(text, spans)
