"""What a report leaves out of the similarity, and who copied from whom.

A stored passage is classified at read time, so a teacher toggling an exclusion sees the
similarity recomputed at once from the stored passages, without analysing anything again:

- "source": its source is excluded from this report;
- "bibliography" / "quote": at least half of it lies in the document's reference list or
  quoted text (`Document.citations`, found when the document was processed);
- "small": it holds fewer than `min_words` words (a CJK character is a word).

A passage that is counted still counts none of its characters that lie in the excluded
ranges (a copied paragraph holding a short quotation counts without the quotation).

Direction: of two documents of one collection, the one submitted earlier is the original;
a later document's passages are what it copied, and the original lists it as "Copied by".
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from documents.models import Collection, Document
from extraction.citations import Citations, find_citations, merged, overlap, word_count

Range = tuple[int, int]

# Submission times closer than this cannot tell who was first: a ZIP stores times to 2 s,
# and the files of one upload (a form post of a class, a batch) arrive seconds apart.
SAME_TIME = datetime.timedelta(seconds=60)

EXCLUSION_REASONS = ("quote", "bibliography", "small", "source")


class Span(Protocol):
    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...


@dataclass(frozen=True)
class Rules:
    """The exclusions a report applies: its collection's settings, maybe toggled."""

    quotes: bool = True
    bibliography: bool = True
    min_words: int = 8
    sources: frozenset[int] = field(default_factory=frozenset)

    @property
    def excluded_sources(self) -> list[int]:
        return sorted(self.sources)

    @classmethod
    def of(cls, collection: Collection) -> Rules:
        return cls(
            quotes=collection.exclude_quotes,
            bibliography=collection.exclude_bibliography,
            min_words=collection.min_match_words,
        )

    def ranges(self, citations: Citations) -> tuple[Range, ...]:
        """The character ranges whose text never counts under these rules."""
        chosen = (citations.quotes if self.quotes else ()) + (
            citations.bibliography if self.bibliography else ()
        )
        return merged(chosen)


def citations_of(document: Document) -> Citations:
    """The document's quoted and reference-list ranges (found from its text when they were
    never stored: a document processed before they were)."""
    stored = document.citations
    if stored is None:
        return find_citations(document.text)
    return Citations(
        quotes=tuple((int(s), int(e)) for s, e in stored.get("quote", [])),
        bibliography=tuple((int(s), int(e)) for s, e in stored.get("bibliography", [])),
    )


def passage_excluded(
    passage: Span, *, source: int, text: str, citations: Citations, rules: Rules
) -> str | None:
    """Why the passage is left out of the similarity, or None when it counts."""
    if source in rules.sources:
        return "source"
    half = (passage.end - passage.start) / 2
    if rules.bibliography and overlap(passage.start, passage.end, citations.bibliography) >= half:
        return "bibliography"
    if rules.quotes and overlap(passage.start, passage.end, citations.quotes) >= half:
        return "quote"
    if word_count(text[passage.start : passage.end]) < rules.min_words:
        return "small"
    return None


def counted_share(text_length: int, counted: Iterable[Span], excluded: Sequence[Range]) -> float:
    """The share of a text of `text_length` characters covered by the `counted` passages,
    without the characters in the `excluded` ranges."""
    if text_length <= 0:
        return 0.0
    covered = merged((p.start, p.end) for p in counted)
    total = sum(end - start for start, end in covered)
    total -= sum(overlap(start, end, excluded) for start, end in covered)
    return min(1.0, max(0, total) / text_length)


def counts_towards(
    *, document: Document, source_collection: int, source_submitted: datetime.datetime
) -> bool:
    """Whether what the document shares with this source raises its similarity: yes for a
    source of another collection (an archive), and for a source of its own collection handed
    in before it or at the same time; no for a later one (it copied from this document)."""
    if source_collection != document.collection_id:
        return True
    return source_submitted <= document.submitted_at + SAME_TIME


def direction(
    first: datetime.datetime, second: datetime.datetime, *, second_is_archive: bool = False
) -> str:
    """Who copied whom in a pair: "a_from_b" (the first document copied from the second),
    "b_from_a", or "same_time" when their submission times cannot tell. An archive document
    is always the original."""
    if second_is_archive:
        return "a_from_b"
    if abs(first - second) <= SAME_TIME:
        return "same_time"
    return "a_from_b" if second < first else "b_from_a"


def rules_from_query(collection: Collection, query: Mapping[str, str]) -> Rules:
    """The collection's rules with a report's toggles applied: `exclude_quotes` and
    `exclude_bibliography` ("1"/"0", "true"/"false"), `min_match_words` (a whole number) and
    `exclude_source` (document ids, comma-separated). ValueError names a bad value."""
    rules = Rules.of(collection)
    flags = {"exclude_quotes": rules.quotes, "exclude_bibliography": rules.bibliography}
    for name in flags:
        value = query.get(name)
        if value is not None:
            if value.lower() not in _TRUE | _FALSE:
                raise ValueError(f"{name} must be 1 or 0.")
            flags[name] = value.lower() in _TRUE
    words = query.get("min_match_words")
    if words is not None and not (words.isascii() and words.isdigit() and len(words) <= 4):
        raise ValueError("min_match_words must be a whole number from 0 to 9999.")
    sources = query.get("exclude_source") or ""
    parts = [part.strip() for part in sources.split(",") if part.strip()]
    if not all(part.isascii() and part.isdigit() and len(part) <= 18 for part in parts):
        raise ValueError("exclude_source must be document ids, comma-separated.")
    return Rules(
        quotes=flags["exclude_quotes"],
        bibliography=flags["exclude_bibliography"],
        min_words=int(words) if words is not None else rules.min_words,
        sources=frozenset(int(part) for part in parts),
    )


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
