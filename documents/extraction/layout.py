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
_CJK_GAP = re.compile(rf"(?<={_CJK})[ \t\u00a0]+(?={_CJK})")


def tidy(text: str) -> str:
    """Strip each line, turn NBSP/ideographic spaces into spaces, collapse blank-line runs."""
    text = text.replace("\u00a0", " ").replace("\u3000", " ").replace("\t", " ")
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip("\n")


def join_cjk_gaps(text: str) -> str:
    """Remove spaces between two CJK characters (an artefact of PDF glyph placement)."""
    return _CJK_GAP.sub("", text)


def paragraphs(blocks: list[str]) -> str:
    """Blocks (paragraphs, cells) as "\\n"-separated lines, empty blocks dropped."""
    return tidy("\n".join(block.strip() for block in blocks if block.strip()))
