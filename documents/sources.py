"""Source texts for word-level passage borders (`detection.detector.detect_refined`).

`detect_refined` asks for the text of each source that has passages; rather than one query per
source, the index wrapper below notes the candidate sources while detection runs and the first
text asked for loads all of them at once.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from detection import Postings, SentenceIndex
from documents.models import Document


class SpanRecorder:
    """The scoped index, noting each document whose spans detection asks for: those are the
    candidate sources, so their texts can be fetched in one query for word-level borders."""

    def __init__(self, index: SentenceIndex) -> None:
        self._index = index
        self.documents: set[int] = set()

    def postings(self, features: Collection[int], *, max_df: int | None) -> Postings:
        return self._index.postings(features, max_df=max_df)

    def document_count(self) -> int:
        return self._index.document_count()

    def spans(
        self, wanted: Mapping[int, Collection[int]]
    ) -> Mapping[int, Mapping[int, tuple[int, int]]]:
        self.documents.update(wanted)
        return self._index.spans(wanted)


class SourceTexts:
    """`source_text` for `detect_refined`: the first call loads the texts of all candidate
    sources in one query (a source asked for but not recorded is loaded on its own)."""

    def __init__(self, recorder: SpanRecorder) -> None:
        self._recorder = recorder
        self._texts: dict[int, str] = {}

    def __call__(self, document_id: int) -> str:
        if document_id not in self._texts:
            wanted = (self._recorder.documents - self._texts.keys()) | {document_id}
            self._texts.update(Document.objects.filter(id__in=wanted).values_list("id", "text"))
        return self._texts.get(document_id, "")
