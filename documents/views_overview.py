"""The report's match overview (every source's passages in the checked text at once, Turnitin's
"match overview") and the collusion graph page of an assignment.

The overview is rendered by `views.document_report` when no source is chosen; the side-by-side
view of one source stays there.
"""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from core.http import AuthenticatedHttpRequest
from documents import policy, selectors
from documents.highlight import PALETTE_SIZE, highlight_html
from documents.templatetags.report_format import KIND_MEANINGS, KIND_NAMES


def report_overview(
    request: HttpRequest,
    *,
    report: selectors.Report,
    around: int | None,
    long_text: bool,
    controls: dict[str, object],
) -> HttpResponse:
    """The checked text once, each copied passage in its source's colour, beside the list of
    sources. `around`: the context kept around passages in a shortened long text."""
    ranges, classes, matches = overview_matches(report)
    rows = cast(list[dict[str, Any]], controls["source_rows"])
    toggles = {row["source"].document: row["toggle"] for row in rows}
    sources = [
        {
            "source": source,
            "toggle": toggles.get(source.document, ""),
            "colour": number % PALETTE_SIZE,
            "excluded": _source_excluded(source),
            "not_counted": not_counted_note(source),
            "kinds": kinds_note(source),
        }
        for number, source in enumerate(report.sources)
    ]
    context = {
        "document": report.document,
        "report": report,
        "sources": sources,
        "overview_html": highlight_html(
            report.document.text,
            ranges,
            side="o",
            context=around,
            classes=classes,
            muted=[(r.start, r.end) for r in report.left_out],
        ),
        "overview_data": {
            "sources": [
                {"id": s.document, "title": s.title, "passages": len(s.passages)}
                for s in report.sources
            ],
            "matches": matches,
            "kinds": {kind: [name, KIND_MEANINGS[kind]] for kind, name in KIND_NAMES.items()},
            "reasons": NOT_COUNTED,
        },
        "shortened": around is not None,
        "long_text": long_text,
        **controls,
    }
    return render(request, "documents/report_overview.html", context)


def overview_matches(
    report: selectors.Report,
) -> tuple[list[tuple[int, int]], list[str], list[dict[str, object]]]:
    """The passages of every source as highlight ranges, their colour classes, and what the
    page script needs of each (`{"source": index, "passage": index, "excluded": reason,
    "kind": kind, "score": score}`).

    Counted passages come first, the most copied source first, excluded ones (greyed) last:
    a stretch found in several sources takes the colour of the first (highlight_html), so
    of the most copied source that counts."""
    listed: list[tuple[bool, int, int, selectors.PassageView]] = []
    for source_number, source in enumerate(report.sources):
        for passage_number, passage in enumerate(source.passages):
            excluded = _excluded(passage) is not None
            listed.append((excluded, source_number, passage_number, passage))
    listed.sort(key=lambda item: (item[0], item[1], item[2]))
    ranges = [(passage.start, passage.end) for *_, passage in listed]
    classes = [
        "excluded" if excluded else f"c{source % PALETTE_SIZE}" for excluded, source, *_ in listed
    ]
    matches: list[dict[str, object]] = [
        {
            "source": source,
            "passage": number,
            "excluded": _excluded(passage),
            "kind": passage.kind,
            "score": round(passage.score, 4),
        }
        for _, source, number, passage in listed
    ]
    return ranges, classes, matches


def _excluded(passage: selectors.PassageView) -> str | None:
    """Why the passage is left out of the similarity (quote, bibliography, small, source), or
    None: reports without exclusions have no such field."""
    return getattr(passage, "excluded", None)


# Why a passage does not count, as the overview's source list says it.
NOT_COUNTED = {
    "quote": "quoted",
    "bibliography": "reference list",
    "small": "small match",
    "source": "source excluded",
}


def not_counted_note(source: selectors.SourceView) -> str:
    """The source's excluded passages and why, e.g. "2 not counted: quoted, small match"."""
    reasons = [_excluded(p) for p in source.passages if _excluded(p) is not None]
    if not reasons:
        return ""
    named = sorted({NOT_COUNTED.get(reason or "", reason or "") for reason in reasons})
    return f"{len(reasons)} not counted: {', '.join(named)}"


def kinds_note(source: selectors.SourceView) -> str:
    """The kinds of the source's passages: "edited" when all are alike, else counted, e.g.
    "2 edited, 1 verbatim" (most first)."""
    counts: dict[str, int] = {}
    for passage in source.passages:
        counts[passage.kind] = counts.get(passage.kind, 0) + 1
    if len(counts) == 1:
        return next(iter(counts))
    order = [*KIND_NAMES, *sorted(set(counts) - set(KIND_NAMES))]
    ranked = sorted(counts.items(), key=lambda item: (-item[1], order.index(item[0])))
    return ", ".join(f"{count} {kind}" for kind, count in ranked)


def _source_excluded(source: selectors.SourceView) -> bool:
    """Whether the source is left out of the score: by the reader (a report's `excluded`
    flag, where reports have one), or every passage of it is excluded."""
    if getattr(source, "excluded", False):
        return True
    return bool(source.passages) and all(_excluded(p) is not None for p in source.passages)


@login_required
def collection_collusion(request: AuthenticatedHttpRequest, collection_id: int) -> HttpResponse:
    """The graph of an assignment's documents linked by the passages they share (drawn in the
    browser from `GET /api/collections/<id>/graph/`)."""
    collection = policy.collection_for(user=request.user, collection_id=collection_id)
    return render(request, "documents/collection_collusion.html", {"collection": collection})
