"""Reads of verdicts: the judgements of pairs and passages, with who and when.

`verdicts_for_document` is what a report (the page, the API, an evidence report) shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q

from documents.models import Collection, Document, Verdict
from documents.selectors import Report, SourceView


@dataclass(frozen=True)
class VerdictView:
    """A judgement of a pair (`start`, `end` None) or of a passage of `document`'s text
    shared with `source`, by whom and when; `current`: the latest of its pair or passage."""

    id: int
    document: int
    source: int
    start: int | None
    end: int | None
    value: str
    label: str
    note: str
    author: str
    created_at: datetime
    current: bool


def verdict_history(*, document: Document) -> list[VerdictView]:
    """Every verdict on the document's pairs and passages (its own, and those of the
    documents it is paired with), newest first, the latest of each marked `current`."""
    rows = (
        Verdict.objects.filter(Q(document=document) | Q(source=document))
        .select_related("author")
        .order_by("-created_at", "-id")
    )
    seen: set[tuple] = set()
    views = []
    for row in rows:
        key = _verdict_key(row.document_id, row.source_id, row.start, row.end)
        views.append(_verdict_view(row, current=key not in seen))
        seen.add(key)
    return views


def verdicts_for_document(*, document: Document) -> list[VerdictView]:
    """The verdicts in force on the document's pairs and passages (the latest of each),
    newest first: what a report shows, with who decided and when."""
    return [view for view in verdict_history(document=document) if view.current]


def pair_verdicts(*, collection: Collection) -> dict[frozenset[int], VerdictView]:
    """The verdicts in force on the pairs involving the collection's documents, by pair."""
    involved = Q(document__collection=collection) | Q(source__collection=collection)
    rows = (
        Verdict.objects.filter(involved, start__isnull=True)
        .select_related("author")
        .order_by("-created_at", "-id")
    )
    found: dict[frozenset[int], VerdictView] = {}
    for row in rows:
        found.setdefault(frozenset((row.document_id, row.source_id)), _verdict_view(row, True))
    return found


def verdict_view(*, verdict: Verdict) -> VerdictView:
    """A verdict just recorded: the latest of its pair or passage."""
    return _verdict_view(verdict, current=True)


def _verdict_key(document: int, source: int, start: int | None, end: int | None) -> tuple:
    """A pair is one whichever side it was judged from; a passage lies in one text."""
    if start is None:
        return (frozenset((document, source)),)
    return (document, source, start, end)


def _verdict_view(row: Verdict, current: bool) -> VerdictView:
    return VerdictView(
        id=row.id, document=row.document_id, source=row.source_id, start=row.start,
        end=row.end, value=row.value, label=row.get_value_display(), note=row.note,
        author=row.author.get_username() if row.author else "", created_at=row.created_at,
        current=current,
    )  # fmt: skip


def report_verdicts(*, document: Document, report: Report, chosen: SourceView | None) -> dict:
    """The report's verdicts: in force on each source's pair (by source id), on the chosen
    pair and its passages (by their characters), and the chosen pair's history."""
    history = verdict_history(document=document)
    other = chosen.document if chosen is not None else None

    def other_side(view: VerdictView) -> int:
        return view.source if view.document == document.id else view.document

    pairs = {other_side(v): v for v in history if v.current and v.start is None}
    return {
        "source_verdicts": {s.document: pairs.get(s.document) for s in report.sources},
        "pair_verdict": pairs.get(other) if other is not None else None,
        "passages": {
            (v.start, v.end): v
            for v in history
            if v.current and v.start is not None and (v.document, v.source) == (document.id, other)
        },
        "pair_history": [v for v in history if other_side(v) == other],
        "verdict_choices": Verdict.Value.choices,
    }
