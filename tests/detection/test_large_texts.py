"""A long text is analysed a piece at a time (bounded memory) with the same result as in one
piece: the pieces are cut at paragraph breaks, which end every sentence."""

from __future__ import annotations

import pytest

from detection import detector
from detection.language import detect_language

PARAGRAPHS = [
    "The committee published its annual report on Monday morning. It describes how the\n"
    "water supply of the region was improved over the last decade.",
    "互联网中存在着大量的近似重复的网页，给搜索引擎带来了很多问题。\n两个完全相同的网页的检测是"
    "比较容易的。",
    "Engineers replaced most of the old pipes — and built two new treatment plants.\n\n\n"
    "The report also warns that rainfall has become less predictable.",
    "报告还指出：“降雨越来越难以预测。”\n  工程师们更换了大部分旧管道",
]
TEXT = "\n\n".join(PARAGRAPHS[i % len(PARAGRAPHS)] for i in range(200))


@pytest.mark.parametrize("size", [150, 1_000, 7_919])
def test_a_text_analysed_in_pieces_equals_the_text_analysed_whole(monkeypatch, size):
    whole = detector.analyze(TEXT)
    monkeypatch.setattr(detector, "PIECE_CHARS", size)
    pieces = list(detector._pieces(TEXT, size))
    assert len(pieces) > 1
    assert "".join(piece for _, piece in pieces) == TEXT
    assert detector.analyze(TEXT) == whole


def test_a_text_without_paragraph_breaks_is_one_piece():
    text = "word " * 1_000
    assert list(detector._pieces(text, 100)) == [(0, text)]


@pytest.mark.parametrize(
    "text",
    [
        "English words only, and more English words after them.",
        "中文为主的文本内容，很长很长的一段话 with a little English",
        "Mostly English words here, with a few Chinese ones: 一点中文。",
    ],
)
def test_the_language_counted_in_slices_is_that_of_the_whole_text(monkeypatch, text):
    from detection import language

    whole = detect_language(text)
    monkeypatch.setattr(language, "_SLICE_CHARS", 7)
    assert detect_language(text) == whole
