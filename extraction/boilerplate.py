"""Site template removal learned from a collection (period feature strings and SimHash).

Period feature strings drop features whose inverse document frequency is below a threshold:
text that recurs on many pages of a site is its template, not content. SimHash's pipeline removes
site boilerplate — copyright notices, "share to" links, source/editor lines — by template matching
after main-content extraction. We combine both at line level, the unit web text comes in:

- a line is keyed by its content with whitespace removed and NFKC-folded; in short lines (the
  size of template lines) digit runs are also replaced by "0", because dates and counters change
  from page to page while the template does not (a long line differing in its numbers is
  content, e.g. a daily market report);
- a short labelled line ("来源：新华社 1998-01-30 编辑：张华", "相关新闻：…") is also keyed by its
  label, the text before the colon, because the value after it changes on every page;
- a key is boilerplate when it occurs in at least `min_docs` documents and in at least a
  `min_share` of them, i.e. its IDF log(N/df) is below log(1/min_share);
- keys are kept as 64-bit hashes (`key_hash`), so a site's key counts can be stored and
  updated page by page (`documents.boilerplate` learns from such counts, not from the pages).

Learn it per site (or per source), never over a mixed collection: a story reprinted by many
sites recurs too, and that is exactly what the detector must still see.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

_DIGITS = re.compile(r"\d+")
_LABEL = re.compile(r"^([^:：]{1,8})[:：]")
_SHORT_LINE = 50


def line_key(line: str) -> str:
    """Key of a line: NFKC, no whitespace; digit runs as "0" in short lines."""
    folded = "".join(unicodedata.normalize("NFKC", line).split())
    return _DIGITS.sub("0", folded) if len(folded) <= _SHORT_LINE else folded


def label_key(line: str) -> str | None:
    """Key of a short "label: value" line (its label), or None for any other line."""
    key = line_key(line)
    if len(key) > _SHORT_LINE:
        return None
    match = _LABEL.match(key)
    return "label:" + match.group(1) if match else None


def key_hash(key: str) -> int:
    """A key as a signed 64-bit integer (blake2b); never 0, which callers may reserve."""
    digest = hashlib.blake2b(key.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True) or 1


def _keys(line: str) -> set[int]:
    keys = {line_key(line)}
    label = label_key(line)
    if label:
        keys.add(label)
    keys.discard("")
    return {key_hash(key) for key in keys}


def text_keys(text: str) -> frozenset[int]:
    """The hashed keys of all lines of `text` (what one document counts for)."""
    return frozenset().union(*(_keys(line) for line in text.split("\n")))


@dataclass(frozen=True)
class Boilerplate:
    """Learned template keys (hashed) of one site; `strip()` drops the lines that match them."""

    keys: frozenset[int]
    documents: int

    @classmethod
    def from_counts(
        cls, counts: Mapping[int, int], documents: int, *, min_share: float, min_docs: int
    ) -> Boilerplate:
        """The template of `documents` documents in which key k occurs `counts[k]` times."""
        if not 0 < min_share <= 1:
            raise ValueError(f"min_share must be in (0, 1], got {min_share}")
        if min_docs < 2:
            raise ValueError(f"min_docs must be at least 2, got {min_docs}")
        needed = max(min_docs, min_share * documents)
        return cls(frozenset(k for k, df in counts.items() if df >= needed), documents)

    def is_boilerplate(self, line: str) -> bool:
        """True when the line matches a learned template line or label."""
        return bool(_keys(line) & self.keys)

    def strip(self, text: str) -> str:
        """The text without its template lines (other lines, blank ones included, kept)."""
        if not self.keys:
            return text
        kept = [line for line in text.split("\n") if not self.is_boilerplate(line)]
        return "\n".join(kept).strip("\n")


def learn_boilerplate(
    texts: Iterable[str], *, min_share: float = 0.5, min_docs: int = 3
) -> Boilerplate:
    """Learn a site's template lines from its documents (the period method's low-IDF filter).

    min_share: fraction of the documents a line (or label) must occur in, in (0, 1].
    min_docs: and at least this many documents, so two pages never make a template.
    """
    frequency: Counter[int] = Counter()
    documents = 0
    for text in texts:
        documents += 1
        frequency.update(text_keys(text))
    return Boilerplate.from_counts(frequency, documents, min_share=min_share, min_docs=min_docs)
