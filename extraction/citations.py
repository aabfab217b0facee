"""Quoted text and reference lists in an extracted text: what a teacher excludes from a report.

Character ranges [start, end) of `text`, found from the text itself (quotation marks, a
reference-list heading) and from the blocks the reader saw styled as block quotes (DOCX
"Quote" paragraphs, HTML <blockquote>: `Extracted.block_quotes`). Turnitin's exclusions work
the same way: a quote is what stands between quotation marks, a bibliography is what follows
a "References" heading.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Range = tuple[int, int]

# Paired marks within one paragraph: “…” (English and Chinese), "…", 「…」, 『…』, «…».
_QUOTES = re.compile(r"“[^“”\n]*”|\"[^\"\n]*\"|「[^「」\n]*」|『[^『』\n]*』|«[^«»\n]*»")
# Quoted text in plain text and e-mail style: lines starting with ">".
_QUOTED_LINE = re.compile(r"^>[^\n]*", re.M)

# A reference-list heading: the whole line, maybe numbered ("7.", "VII", "第七章") and with
# a colon; "Literature Review" is no match (the line holds more than the word).
_HEADINGS = (
    "references?",
    "reference list",
    "bibliography",
    "works cited",
    "literature cited",
    "literature",
    "sources",
    "notes",
    "参考文献",
    "参考资料",
    "参考书目",
    "引用文献",
    "注释",
    "文献",
    "参考文獻",
    "參考文獻",
)
_NUMBERING = (
    r"(?:[(（]?(?:\d+|[ivxlc]+|[一二三四五六七八九十]+)[.、．)）]?[ \t]*"
    r"|第[一二三四五六七八九十\d]+[章节部分][ \t]*)?"
)
_HEADING = re.compile(
    rf"^[ \t#*]*{_NUMBERING}(?:{'|'.join(_HEADINGS)})[ \t]*[:：]?[ \t*]*$", re.I | re.M
)
# A major heading after the list ends it: appendices, acknowledgements.
_AFTER = re.compile(
    rf"^[ \t#*]*{_NUMBERING}(?:appendix|appendices|acknowledge?ments?|附录|致谢|后记)\b.{{0,40}}$",
    re.I | re.M,
)
# What an entry of a reference list holds: a year, a URL or DOI, a list number, "et al.",
# page numbers, a publisher, Chinese book marks or a [J]/[M] document type code (GB/T 7714).
_ENTRY = re.compile(
    r"(?:1[5-9]|20)\d\d|https?://|doi|^\s*\[?\d{1,3}[\].)]|et al|pp?\.\s*\d|press|"
    r"出版社|《|\[[JMCDRSNPGZ]\]|[:：]\s*\d+[-–]\d+",
    re.I,
)
# A heading opens a list only when at least this share of the lines after it are entries:
# a "References" line on top of an essay must not hide the essay.
_MIN_ENTRY_SHARE = 0.5

# Word counts for the small-match rule: a CJK character counts as a word, as does every
# run of letters or digits in other scripts.
_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
_WORDS = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")


@dataclass(frozen=True)
class Citations:
    """Quoted and bibliography ranges of a text, each list sorted and without overlaps."""

    quotes: tuple[Range, ...] = ()
    bibliography: tuple[Range, ...] = ()

    def as_json(self) -> dict[str, list[list[int]]]:
        return {
            "quote": [list(r) for r in self.quotes],
            "bibliography": [list(r) for r in self.bibliography],
        }


def find_citations(text: str, block_quotes: Iterable[str] = ()) -> Citations:
    """The quoted passages and reference sections of `text`; `block_quotes` are the texts of
    blocks the reader saw set as quotations (found here as whole lines of `text`)."""
    quotes = [m.span() for m in _QUOTES.finditer(text)]
    quotes += [m.span() for m in _QUOTED_LINE.finditer(text)]
    quotes += _lines_found(text, block_quotes)
    return Citations(quotes=merged(quotes), bibliography=merged(bibliography_ranges(text)))


def bibliography_ranges(text: str) -> list[Range]:
    """From each reference-list heading to the next major heading or the end of the text
    (the heading line included), when the lines it opens look like reference entries."""
    found: list[Range] = []
    for heading in _HEADING.finditer(text):
        if found and heading.start() < found[-1][1]:
            continue
        after = _AFTER.search(text, heading.end())
        end = after.start() if after else len(text)
        entries = [line for line in text[heading.end() : end].split("\n") if line.strip()]
        looks_listed = sum(1 for line in entries if _ENTRY.search(line))
        if entries and looks_listed >= _MIN_ENTRY_SHARE * len(entries):
            found.append((heading.start(), end))
    return found


def _lines_found(text: str, blocks: Iterable[str]) -> list[Range]:
    """Where each block stands as a whole line (or run of lines) in `text`."""
    spans: list[Range] = []
    for block in {" ".join(b.split()) for b in blocks}:
        if not block:
            continue
        for match in re.finditer(rf"(?m)^{re.escape(block)}$", text):
            spans.append(match.span())
    return spans


def merged(ranges: Iterable[Sequence[int]]) -> tuple[Range, ...]:
    """Sorted ranges with overlapping or touching ones joined, empty ones dropped."""
    out: list[Range] = []
    for start, end in sorted((int(r[0]), int(r[1])) for r in ranges):
        if end <= start:
            continue
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return tuple(out)


def overlap(start: int, end: int, ranges: Sequence[Sequence[int]]) -> int:
    """How many characters of [start, end) lie in `ranges` (sorted, without overlaps).

    A binary search finds the first range ending after `start`: a long text has thousands of
    quotes, and a report asks this for each of its passages."""
    total = 0
    for number in range(bisect_right(ranges, start, key=lambda r: r[1]), len(ranges)):
        first, last = ranges[number][0], ranges[number][1]
        if first >= end:
            break
        total += max(0, min(end, last) - max(start, first))
    return total


def word_count(text: str) -> int:
    """Words of `text`: each CJK character one, each run of letters or digits one."""
    return len(_WORDS.findall(text))
