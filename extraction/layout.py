"""Line-level tidying shared by the readers: the text layout every format ends in.

Paragraphs are separated by "\\n"; lines are stripped of surrounding spaces; runs of blank lines
collapse to one; the result has no leading/trailing blank lines.
"""

from __future__ import annotations

import re

_BLANK_RUNS = re.compile(r"\n{3,}")
_CJK = r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]"
# PDF text layers often place each CJK glyph separately, so extractors emit "中 文"; a space
# between two CJK characters never carries meaning in Chinese.
_FULL_LINE = 0.9
# Chinese characters, full-width forms, CJK punctuation and curly quotes: text set in CJK lines.
_CJK_CHAR = r"[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef\u00b7\u2014\u2018-\u201d\u2026]"
_WRAPPABLE_END = re.compile(_CJK_CHAR + "$")
_CJK_START = re.compile(_CJK_CHAR)
_CJK_GAP = re.compile(rf"(?<={_CJK})[ \t\u00a0]+(?={_CJK})")


def tidy(text: str) -> str:
    """Strip each line, turn NBSP/ideographic spaces into spaces, collapse blank-line runs."""
    text = text.replace("\u00a0", " ").replace("\u3000", " ").replace("\t", " ")
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip("\n")


def join_cjk_gaps(text: str) -> str:
    """Remove spaces between two CJK characters (an artefact of PDF glyph placement)."""
    return _CJK_GAP.sub("", text)


def reflow_wrapped_lines(text: str) -> str:
    """Join lines that a PDF layout wrapped inside a CJK paragraph.

    A line was wrapped by the layout when it is as long as the page's full lines (at least
    _FULL_LINE of the 75th-percentile line length) and both it and the next line are CJK text at
    the seam: a paragraph's last line is short, so even a full line ending in "。" most likely
    continues. Chinese has no spaces, so the newline would otherwise cut a word or sentence.
    """
    lines = text.split("\n")
    lengths = sorted(len(line) for line in lines if line)
    if len(lengths) < 2:
        return text
    full = lengths[len(lengths) * 3 // 4] * _FULL_LINE
    out = [lines[0]]
    for previous, line in zip(lines, lines[1:], strict=False):
        wrapped = len(previous) >= full and _WRAPPABLE_END.search(previous)
        if wrapped and _CJK_START.match(line):
            out[-1] += line
        else:
            out.append(line)
    return "\n".join(out)


def paragraphs(blocks: list[str]) -> str:
    """Blocks (paragraphs, cells) as "\\n"-separated lines, empty blocks dropped."""
    return tidy("\n".join(block.strip() for block in blocks if block.strip()))
