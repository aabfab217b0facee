"""Source texts and sentence units for `detection.detector.detect_refined`.

`detect_refined` asks for the text of each source that has passages; rather than one query per
source, the index wrapper below notes the candidate sources while detection runs and the first
text asked for loads all of them at once. The sentence units of the disguised-copy stage are
kept per document (`DocumentUnits`), made at the first check that needs them.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Collection, Mapping

from django.db import DEFAULT_DB_ALIAS, IntegrityError, connections, transaction
from django.db.models import F
from django.db.models.functions import MD5

from detection import Postings, SentenceIndex
from detection.detector import units_version
from detection.seeding import Units
from documents.models import Document, DocumentUnits

logger = logging.getLogger(__name__)


class SpanRecorder:
    """The scoped index, noting each document whose spans detection asks for: those are the
    candidate sources, so their texts can be fetched in one query for word-level borders."""

    def __init__(self, index: SentenceIndex) -> None:
        self._index = index
        self.documents: set[int] = set()

    def postings(self, features: Collection[int], *, max_df: int | None) -> Postings:
        return self._index.postings(features, max_df=max_df)

    def term_postings(self, terms: Collection[int], *, max_df: int | None) -> Postings:
        return self._index.term_postings(terms, max_df=max_df)

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
            self.prefetch({document_id})
        return self._texts.get(document_id, "")

    def prefetch(self, documents: Collection[int]) -> None:
        """Load the texts of ``documents`` and of every recorded source not loaded yet, in
        one query (the candidates without a sentence pair are not recorded: the unit store
        names those whose units it lacks)."""
        wanted = (self._recorder.documents | set(documents)) - self._texts.keys()
        if wanted:
            self._texts.update(Document.objects.filter(id__in=wanted).values_list("id", "text"))


class StoredUnits:
    """`detection.detector.UnitStore` on `DocumentUnits`: units of this version made from the
    document's present text (md5 compared on the server) are read, new ones written with the
    md5 of the text they were made from (`source_text`, the text the check read)."""

    def __init__(self, source_text: Callable[[int], str], *, using: str = DEFAULT_DB_ALIAS) -> None:
        self._text = source_text
        self._using = using
        self.version = units_version()

    def load(self, documents: Collection[int]) -> Mapping[int, Units]:
        rows = (
            DocumentUnits.objects.using(self._using)
            .filter(document_id__in=list(documents), version=self.version)
            .alias(current=MD5("document__text"))
            .filter(text_md5=F("current"))
            .values_list("document_id", "units")
        )
        found = {document: _units(stored) for document, stored in rows}
        missing = set(documents) - found.keys()
        prefetch = getattr(self._text, "prefetch", None)
        if missing and prefetch is not None:  # their units are made from their texts next
            prefetch(missing)
        return found

    def save(self, units: Mapping[int, Units]) -> None:
        ids = list(units)
        digests = [_md5(self._text(document)) for document in ids]
        payloads = [json.dumps(_stored(units[document])) for document in ids]
        # Documents deleted meanwhile are left out by the join; one deleted between the join
        # and the commit fails the foreign key: the units are only a cache, so that is fine.
        try:
            with transaction.atomic(using=self._using), connections[self._using].cursor() as cursor:
                cursor.execute(_SAVE, [self.version, ids, digests, payloads])
        except IntegrityError:
            logger.info("sentence units of %s not kept: a document is gone", ids)


_SAVE = f"""
INSERT INTO {DocumentUnits._meta.db_table} (document_id, version, text_md5, units)
SELECT d.id, %s, u.md5, u.units::jsonb
FROM unnest(%s::bigint[], %s::text[], %s::text[]) AS u(id, md5, units)
JOIN {Document._meta.db_table} d ON d.id = u.id
ON CONFLICT (document_id) DO UPDATE
SET version = EXCLUDED.version, text_md5 = EXCLUDED.text_md5, units = EXCLUDED.units
"""


def _md5(text: str) -> str:
    return hashlib.md5(text.encode(), usedforsecurity=False).hexdigest()


def _stored(units: Units) -> dict[str, object]:
    return {"spans": [list(span) for span in units.spans], "terms": [list(t) for t in units.terms]}


def _units(stored: dict[str, list[list]]) -> Units:  # type: ignore[type-arg]
    spans = tuple((start, end) for start, end in stored["spans"])
    return Units(spans, tuple(tuple(terms) for terms in stored["terms"]))
