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
from itertools import accumulate
from typing import Final, NamedTuple

import rjieba

__all__ = ["Token", "tokenize", "token_spans", "WORDS_VERSION"]

#: Changes whenever :func:`tokenize` can cut a text differently.
WORDS_VERSION: Final = "w1-rjieba-0.2.2"

_HAN: Final = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff"
_ANY_HAN: Final = re.compile(f"[{_HAN}]")
_PIECE: Final = re.compile(
    rf"(?P<han>[{_HAN}]+)"
    rf"|(?P<word>[^\W\d_{_HAN}]+(?:['’][^\W\d_{_HAN}]+)*)"
    r"|(?P<number>\d+(?:[.,]\d+)*)"
)


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
