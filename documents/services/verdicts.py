"""Verdicts: a reviewer or teacher judges a pair of documents, or one passage of it."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import Q

from documents.models import Document, Match, MatchPassage, Verdict
from documents.services.errors import VerdictError

NOTE_MAX = 2000


def verdict_record(
    *,
    document: Document,
    source_id: int,
    value: str,
    author: User,
    note: str = "",
    start: int | None = None,
    end: int | None = None,
) -> Verdict:
    """Record a judgement of the pair (`document`, `source_id`) or, with `start` and `end`,
    of the passage [start, end) of `document` that the report shows shared with the source.
    Appended: the earlier verdicts of the pair or passage stay as its history."""
    if value not in Verdict.Value.values:
        raise VerdictError(f"verdict must be one of {', '.join(Verdict.Value.values)}.")
    if len(note) > NOTE_MAX:
        raise VerdictError(f"A note has at most {NOTE_MAX} characters.", field="note")
    pair = Q(document=document, source_id=source_id) | Q(document_id=source_id, source=document)
    if not Match.objects.filter(pair).exists():
        raise VerdictError("These two documents share no passage.", field="source")
    if (start is None) != (end is None):
        raise VerdictError("A passage needs both its start and its end.", field="start")
    if start is not None and end is not None and not _is_passage(document, source_id, start, end):
        raise VerdictError(
            "No passage of the report has these characters; reload the report.", field="start"
        )
    return Verdict.objects.create(
        document=document,
        source_id=source_id,
        value=value,
        note=note.strip(),
        author=author,
        start=start,
        end=end,
    )


def _is_passage(document: Document, source_id: int, start: int, end: int) -> bool:
    return MatchPassage.objects.filter(
        match__document=document, match__source_id=source_id, start=start, end=end
    ).exists()
