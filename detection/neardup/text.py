"""The text layer the near-duplicate methods share, on top of ``detection.normalize``/``words``.

Every method sees the same folded text (width, case, traditional → simplified, whitespace) so a
traditional-character or full-width reprint is compared with its original as equal text.  Lines
survive normalisation as ``"\\n"`` (one paragraph per line in Chinese news), which the template
filter relies on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from detection.normalize import normalize
from detection.words import token_spans

__all__ = ["fold", "words", "lines", "line_key", "is_han"]

_DIGITS = re.compile(r"\d+")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def fold(text: str) -> str:
    """Normalised text (see ``detection.normalize``) without offsets."""
    return normalize(text).text


def words(text: str) -> list[str]:
    """Words of already folded ``text`` (rjieba for Han, regex for Latin and numbers)."""
    return token_spans(text)[0]


def lines(text: str) -> list[str]:
    """Non-empty stripped lines of a raw (not yet folded) ``text``.

    Lines are cut before normalisation: ``normalize`` joins the lines of Latin text into one
    (only Chinese keeps its line breaks), and a template is made of lines in every script.
    """
    return [line.strip() for line in text.splitlines() if line.strip()]


def line_key(line: str) -> str:
    """A raw line folded, with digit runs masked: dates and counters in a header do not count."""
    return _DIGITS.sub("0", fold(line))


def is_han(word: str) -> bool:
    return bool(_HAN.search(word))


def count_lines(texts: Iterable[str]) -> dict[str, int]:
    """Document frequency of :func:`line_key` over raw ``texts``."""
    df: dict[str, int] = {}
    for text in texts:
        for key in {line_key(line) for line in lines(text)}:
            df[key] = df.get(key, 0) + 1
    return df
