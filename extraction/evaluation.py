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

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from detection.lcs import lcs_length

from .boilerplate import learn_boilerplate


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
    total = Overlap(
        sum(o.common for o in items), sum(o.extracted for o in items), sum(o.cleaned for o in items)
    )
    n = len(items)
    return Scores(
        n,
        total.precision,
        total.recall,
        total.f1,
        sum(o.precision for o in items) / n,
        sum(o.recall for o in items) / n,
        sum(o.f1 for o in items) / n,
    )


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


def evaluate_folder(
    folder: Path,
    extractor: Callable[[str, bytes], str],
    *,
    boilerplate: tuple[float, int] | None = None,
) -> dict[str, Scores]:
    """Run `extractor(filename, data)` on every page and score it with both measures.

    boilerplate: (min_share, min_docs) to also learn and strip each site's template lines from
    the extracted texts (pages grouped by `site_of`), as the product does per source.
    A page the extractor rejects (ExtractionError or any parser failure) counts as empty output.
    """
    pages: list[tuple[str | None, str]] = []
    cleaned: list[str] = []
    for html, cleaned_path in dataset_pairs(folder):
        data = html.read_bytes()
        try:
            extracted = extractor(html.name, data)
        except Exception:  # noqa: BLE001 — a failure is a zero-recall page, not a crash
            extracted = ""
        pages.append((site_of(data), extracted))
        cleaned.append(cleaned_path.read_text(encoding="utf-8", errors="replace"))
    texts = [text for _, text in pages]
    if boilerplate is not None:
        min_share, min_docs = boilerplate
        texts = strip_site_boilerplate(pages, min_share=min_share, min_docs=min_docs)
    return {
        "lcs": summarise(lcs_overlap(t, c) for t, c in zip(texts, cleaned, strict=True)),
        "bag": summarise(bag_overlap(t, c) for t, c in zip(texts, cleaned, strict=True)),
    }


_PAGE_URL = re.compile(
    rb"""(?:<text\s+id|<link\s+rel=["']canonical["']\s+href|<base\s+href)\s*=\s*["']https?://"""
    rb"""([^/"':]+)""",
    re.I,
)
_SECOND_LEVEL = frozenset({"com", "net", "org", "gov", "edu", "ac"})


def site_of(data: bytes) -> str | None:
    """The site (registrable domain) a saved page came from, when the page records its URL.

    Reads the dataset's <text id="URL"> wrapper, a canonical link or <base href>;
    "news.sina.com.cn" → "sina.com.cn", "business.sohu.com" → "sohu.com".
    """
    match = _PAGE_URL.search(data[:8192])
    if not match:
        return None
    labels = match.group(1).decode("ascii", errors="replace").lower().split(".")
    keep = 3 if len(labels) > 2 and labels[-2] in _SECOND_LEVEL else 2
    return ".".join(labels[-keep:])


def strip_site_boilerplate(
    pages: list[tuple[str | None, str]], *, min_share: float, min_docs: int
) -> list[str]:
    """Texts of (site, text) pages with each site's learned template lines removed.

    Pages without a site, or of a site with fewer than `min_docs` pages, are left as they are.
    """
    by_site: dict[str, list[str]] = {}
    for site, text in pages:
        if site:
            by_site.setdefault(site, []).append(text)
    learned = {
        site: learn_boilerplate(texts, min_share=min_share, min_docs=min_docs)
        for site, texts in by_site.items()
        if len(texts) >= min_docs
    }
    return [learned[site].strip(text) if site in learned else text for site, text in pages]
