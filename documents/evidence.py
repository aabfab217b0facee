"""The evidence report: a document's report as one self-contained HTML file and as a PDF.

What a teacher hands to a student or an exam board: the document (name, submission time,
SHA-256 of the file as uploaded), the settings the similarity was computed with, the overall
and per-source similarity, the full text with every passage in its source's colour (passages
left out greyed, with the reason), each passage beside the source's text, and the reviewers'
verdicts in force with who recorded them and when.

The HTML holds its CSS inline and links nothing; WeasyPrint lays the same HTML out as a PDF
with the system's fonts (Debian's Noto CJK for Chinese: scripts/setup.sh).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from documents.selectors import LeftOut, PassageView, Report, SourceView
from documents.verdicts import verdicts_for_document

# Source colours (cycled), light enough to read black text on, distinct in print.
COLOURS = (
    "#fde68a", "#bfdbfe", "#bbf7d0", "#fbcfe8", "#ddd6fe", "#fed7aa", "#a5f3fc", "#e9d5ff",
    "#fecaca", "#d9f99d",
)  # fmt: skip
EXCLUDED_COLOUR = "#e5e7eb"
# A text longer than this keeps only CONTEXT characters around its passages (a book with a
# few copied pages is a report, not the book); each excerpt is cut to EXCERPT characters.
LONG_TEXT = 60_000
CONTEXT = 400
EXCERPT = 1_500
REASONS = {
    "quote": "quoted",
    "bibliography": "reference list",
    "small": "small match",
    "source": "source excluded",
}


@dataclass(frozen=True)
class _Marked:
    start: int
    end: int
    source: int  # index of the source in the report's listing
    excluded: str | None


def evidence_html(report: Report, source_texts: dict[int, str]) -> str:
    """The report as one HTML document with inline CSS; `source_texts` by source id give the
    excerpts of the sources."""
    listed = (*report.sources, *report.copied_by)
    document = report.document
    context = {
        "report": report,
        "document": document,
        "generated_at": timezone.now(),
        "rules": report.rules,
        "sources": [_source_row(n, s, report) for n, s in enumerate(report.sources)],
        "copied_by": [
            _source_row(n + len(report.sources), s, report) for n, s in enumerate(report.copied_by)
        ],
        "text_html": _text_html(document.text, listed, report.left_out),
        "excerpts": [
            _excerpts(n, source, document.text, source_texts.get(source.document, ""))
            for n, source in enumerate(listed)
        ],
        "colours": COLOURS,
        "excluded_colour": EXCLUDED_COLOUR,
        "verdicts": _verdict_rows(report),
    }
    return render_to_string("documents/evidence.html", context)


def _verdict_rows(report: Report) -> list[dict[str, object]]:
    """The verdicts in force on the document's pairs and passages, with the other document's
    title (when the report lists it) and the passage's characters."""
    titles = {s.document: s.title for s in (*report.sources, *report.copied_by)}
    rows = []
    for verdict in verdicts_for_document(document=report.document):
        other = verdict.source if verdict.document == report.document.id else verdict.document
        rows.append({"verdict": verdict, "other": titles.get(other, f"document {other}")})
    return rows


def evidence_pdf(report: Report, source_texts: dict[int, str]) -> bytes:
    """The evidence report laid out as a PDF (A4)."""
    from weasyprint import HTML  # imported here: loading Pango costs every process otherwise

    return HTML(string=evidence_html(report, source_texts)).write_pdf()


def _colour(number: int) -> str:
    return COLOURS[number % len(COLOURS)]


def _source_row(number: int, source: SourceView, report: Report) -> dict[str, object]:
    counted = sum(1 for p in source.passages if p.excluded is None)
    return {
        "number": number + 1,
        "colour": _colour(number),
        "source": source,
        "counted": counted,
        "left_out": len(source.passages) - counted,
    }


def _text_html(
    text: str, sources: tuple[SourceView, ...], left_out: Sequence[LeftOut]
) -> SafeString:
    """`text` escaped, each passage marked in its source's colour (grey when excluded, and
    where it runs over left-out quotes or references) and numbered by its source at its
    start; a long text keeps only the stretches near them."""
    marked = [
        _Marked(p.start, p.end, number, p.excluded)
        for number, source in enumerate(sources)
        for p in source.passages
        if source.direction != "to_source"  # what later documents took: in their excerpts
    ]
    marked += [_Marked(r.start, r.end, -1, r.reason) for r in left_out]
    cuts = sorted({0, len(text), *(m.start for m in marked), *(m.end for m in marked)})
    cuts = [c for c in cuts if 0 <= c <= len(text)]
    parts: list[str] = []
    for left, right in zip(cuts, cuts[1:], strict=False):
        starting = sorted({m.source for m in marked if m.start == left and m.source >= 0})
        parts.extend(format_html('<sup class="ref">[{}]</sup>', n + 1) for n in starting)
        covering = [m for m in marked if m.start <= left and right <= m.end]
        piece = text[left:right]
        if not any(m.source >= 0 for m in covering):  # no passage (maybe a quote no one copied)
            parts.append(_plain(piece, len(text) > LONG_TEXT, left == 0, right == len(text)))
            continue
        # Text left out is grey even inside a counted passage; otherwise a counted passage
        # shows over an excluded one covering the same text.
        shown = min(covering, key=lambda m: (m.source >= 0, m.excluded is not None, m.source))
        colour = EXCLUDED_COLOUR if shown.excluded else _colour(shown.source)
        parts.append(
            format_html(
                '<span class="hl{}" style="background:{}">{}</span>',
                " excluded" if shown.excluded else "",
                colour,
                piece,
            )
        )
    return mark_safe("".join(parts))  # noqa: S308 - every part is escaped above


def _plain(piece: str, long: bool, first: bool, last: bool) -> str:
    """An unmarked stretch; in a long text only CONTEXT characters beside the passages."""
    if not long or len(piece) <= 2 * CONTEXT + 200:
        return escape(piece)
    head = CONTEXT
    tail = 0 if last else CONTEXT
    left_out = len(piece) - head - tail
    return (
        escape(piece[:head])
        + format_html(
            '<span class="gap">[… {} characters without matches …]</span>', f"{left_out:,}"
        )
        + escape(piece[len(piece) - tail :])
    )


def _excerpts(number: int, source: SourceView, text: str, source_text: str) -> dict[str, object]:
    return {
        "number": number + 1,
        "colour": _colour(number),
        "source": source,
        "passages": [_excerpt_pair(p, text, source_text) for p in source.passages],
    }


def _excerpt_pair(passage: PassageView, text: str, source_text: str) -> dict[str, object]:
    return {
        "passage": passage,
        "reason": REASONS.get(passage.excluded or ""),
        "text": _cut(text[passage.start : passage.end]),
        "source_text": _cut(source_text[passage.source_start : passage.source_end]),
    }


def _cut(piece: str) -> str:
    piece = " ".join(piece.split())
    return piece if len(piece) <= EXCERPT else piece[:EXCERPT] + " […]"
