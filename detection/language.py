"""Coarse language identification: Chinese, English (any Latin-script text) or mixed.

Detection only needs to know which words to expect, so the measure is simple and
deterministic: the share of Han characters among "units", where a unit is a Han character or
1.5 Latin letters (an English word of ~5 letters carries about as much as 3 Chinese
characters).
"""

from __future__ import annotations

import re
from typing import Final, Literal

__all__ = ["Language", "detect_language"]

Language = Literal["zh", "en", "mixed"]

_HAN_RUN: Final = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff]+")
_LATIN_RUN: Final = re.compile("[A-Za-z\u00c0-\u024f\uff21-\uff3a\uff41-\uff5a]+")
_LETTERS_PER_UNIT: Final = 1.5
_MAJORITY: Final = 0.8


def detect_language(text: str) -> Language:
    """Return ``"zh"``, ``"en"`` or ``"mixed"``; text without letters counts as ``"en"``."""
    han = sum(map(len, _HAN_RUN.findall(text)))
    latin = sum(map(len, _LATIN_RUN.findall(text))) / _LETTERS_PER_UNIT
    total = han + latin
    if total == 0:
        return "en"
    share = han / total
    if share >= _MAJORITY:
        return "zh"
    if share <= 1 - _MAJORITY:
        return "en"
    return "mixed"
