"""Character-level precision/recall/F1 of extracted text against hand-cleaned text.

Both texts are compared as sequences of their non-whitespace characters (whitespace and line
breaks are layout, not content). Two overlap measures are reported:

- "lcs" (the headline figure): the length of the longest common subsequence of the two character
  sequences, so text must be extracted in the right order to count. Precision = LCS / |extracted|,
  recall = LCS / |cleaned|.
- "bag": bag-of-characters overlap, sum over characters c of min(count_extracted(c),
  count_cleaned(c)); order-blind, an upper bound of "lcs".

Micro figures sum overlaps and lengths over all documents; macro figures average the per-document
precision, recall and F1 (an empty extraction has precision 1 by convention, recall 0).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Overlap:
    """Overlap of one extracted/cleaned pair: shared characters and both lengths."""

    common: int
    extracted: int
    cleaned: int

    @property
    def precision(self) -> float:
        return self.common / self.extracted if self.extracted else 1.0

    @property
    def recall(self) -> float:
        return self.common / self.cleaned if self.cleaned else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass(frozen=True)
class Scores:
    """Micro and macro precision/recall/F1 over a collection."""

    documents: int
    micro_precision: float
    micro_recall: float
    micro_f1: float
    macro_precision: float
    macro_recall: float
    macro_f1: float


def content_chars(text: str) -> str:
    """The text without any whitespace: what both measures compare."""
    return "".join(text.split())


def lcs_length(a: str, b: str) -> int:
    """Length of the longest common subsequence, bit-parallel (Crochemore et al., 2001).

    Bit i of `row` is 0 where the LCS row has a step at a[i]; one big-int update per char of `b`.
    """
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for i, char in enumerate(a):
        masks[char] = masks.get(char, 0) | (1 << i)
    full = (1 << len(a)) - 1
    row = full
    for char in b:
        matched = row & masks.get(char, 0)
        row = ((row + matched) | (row - matched)) & full
    return len(a) - row.bit_count()


def lcs_overlap(extracted: str, cleaned: str) -> Overlap:
    """LCS-based overlap of the non-whitespace characters."""
    a, b = content_chars(extracted), content_chars(cleaned)
    return Overlap(lcs_length(a, b), len(a), len(b))


def bag_overlap(extracted: str, cleaned: str) -> Overlap:
    """Bag-of-characters overlap of the non-whitespace characters."""
    a, b = Counter(content_chars(extracted)), Counter(content_chars(cleaned))
    common = sum(min(count, b[char]) for char, count in a.items())
    return Overlap(common, sum(a.values()), sum(b.values()))


def summarise(overlaps: Iterable[Overlap]) -> Scores:
    """Micro and macro scores of a collection of per-document overlaps."""
    items = list(overlaps)
    if not items:
        raise ValueError("no documents to score")
    total = Overlap(sum(o.common for o in items), sum(o.extracted for o in items),
                    sum(o.cleaned for o in items))
    n = len(items)
    return Scores(n, total.precision, total.recall, total.f1,
                  sum(o.precision for o in items) / n, sum(o.recall for o in items) / n,
                  sum(o.f1 for o in items) / n)


def dataset_pairs(folder: Path) -> list[tuple[Path, Path]]:
    """(original/NAME.html, cleaned/NAME.txt) pairs of a zh-web-extraction style folder."""
    pairs = []
    for html in sorted((folder / "original").glob("*.htm*")):
        cleaned = folder / "cleaned" / (html.stem + ".txt")
        if cleaned.exists():
            pairs.append((html, cleaned))
    if not pairs:
        raise ValueError(f"no original/*.html with a cleaned/*.txt in {folder}")
    return pairs


def evaluate_folder(folder: Path, extractor: Callable[[str, bytes], str]) -> dict[str, Scores]:
    """Run `extractor(filename, data)` on every page and score it with both measures.

    A page the extractor rejects (ExtractionError or any parser failure) counts as empty output.
    """
    lcs, bag = [], []
    for html, cleaned_path in dataset_pairs(folder):
        cleaned = cleaned_path.read_text(encoding="utf-8", errors="replace")
        try:
            extracted = extractor(html.name, html.read_bytes())
        except Exception:  # noqa: BLE001 — a failure is a zero-recall page, not a crash
            extracted = ""
        lcs.append(lcs_overlap(extracted, cleaned))
        bag.append(bag_overlap(extracted, cleaned))
    return {"lcs": summarise(lcs), "bag": summarise(bag)}
