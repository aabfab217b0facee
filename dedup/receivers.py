"""What near-duplicate runs do when the documents app announces something (`documents.signals`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dedup import selectors, services


def on_document_processed(*, document_id: int, **_: Any) -> None:
    """A processed document joins its collection's latest runs (queued after commit)."""
    services.dedup_assign_enqueue(document_id=document_id)


def on_documents_imported(*, collection_id: int, document_ids: Sequence[int], **_: Any) -> None:
    """Imported documents join the archive's latest runs, if it has any."""
    if not selectors.latest_finished_runs(collection_id=collection_id):
        return
    for document_id in document_ids:
        services.dedup_assign_enqueue(document_id=document_id)


def on_stale_requeue(**_: Any) -> int:
    """Queue the runs nobody works on any more again; how many."""
    return services.dedup_runs_stale_requeue()


def on_unfinished_resume(**_: Any) -> str:
    """Queue the runs whose message was lost again; the line start-up prints."""
    runs = services.dedup_runs_resume()
    return f"Queued {runs} unfinished near-duplicate run(s) again." if runs else ""
