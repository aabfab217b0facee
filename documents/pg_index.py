"""The inverted index of seed 003 (feature -> sentence postings) in PostgreSQL.

Layout (migrations 0002-0011 of `documents/migrations/`):

- `documents_posting(feature bigint, model smallint, ref bigint)`: one flat row per
  (feature, sentence), HASH-partitioned by feature into `POSTING_PARTITIONS` tables, with a
  COVERING btree `(feature) INCLUDE (model, ref)` (lookups are Index Only Scans) and a BRIN
  (minmax-multi) index on `ref` (removal: a document's postings are the ref range
  `id << 32 .. (id << 32) | (2^32 - 1)`). `ref` packs document, sentence and the sentence's feature
  count (`detection.pack_refs`, migration 0011); `model` is the id of the feature model in
  `documents_index_model`.
- `documents_feature_df(feature bigint, df int)`, primary key `(feature) INCLUDE (df)`: in how
  many indexed documents a feature occurs. Kept in step with the postings on add/remove so the
  query can skip features too common to be evidence of copying (the detector passes `max_df`).
- `documents_index_adds`: how many documents were ever added (the bound that lets a process
  cache its list of heavy features, see `heavy_features`); `documents_index_documents`: how
  many are indexed per model, kept by triggers (`document_count`).
- Sentence spans: arrays on the document row (`spans`).

Deleting Document rows (in any way) deletes their postings and decrements df through the
trigger of migration 0003; `remove_many` is for re-indexing documents that stay. Both run the
SQL function `documents_index_forget_documents` (migration 0012).

Postings are loaded with COPY (binary, built column-wise: `documents.pg_copy`) and looked up
in ONE round trip per query document (`postings`, statement in `documents.pg_lookup`).
The index is bound to one `model_version`: features of different models are not comparable,
so adding an analysis of another version raises and lookups only return documents of its own.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace

import numpy as np
from django.db import connections, transaction
from django.db.backends.utils import CursorWrapper

from detection import DEFAULT_CONFIG, Postings, unpack_refs
from documents.pg_copy import (
    COPY_COLUMNS,
    COPY_SIGNATURE,
    COPY_TRAILER,
    AnalysisLike,
    PostingColumns,
    copy_rows,
    df_increments,
    posting_columns,
)
from documents.pg_lookup import (
    ADDS,
    ADDS_TABLE,
    DF_TABLE,
    MODEL_TABLE,
    POSTING_PARTITIONS,
    POSTING_TABLE,
    SCOPE_COLLECTIONS,
    SCOPE_DOCUMENTS,
    HeavyFeatures,
    Int8Array,
    lookup_cursor,
    lookup_statement,
)

__all__ = ["DF_TABLE", "POSTING_PARTITIONS", "POSTING_TABLE", "IndexVersionError",
           "PostgresSentenceIndex", "df_increments", "posting_columns"]  # fmt: skip

# After loading this many postings in one call the planner statistics are refreshed, so that
# lookups keep using the feature index instead of guessing from an empty table.
ANALYZE_AFTER_ROWS = 200_000
# The heavy-feature cache (migration 0005): features with df above max(HEAVY_FLOOR, max_df // 2)
# are listed per process; every other feature skips the df probe while the documents added
# since (counted in ADDS_TABLE, read in the lookup's own snapshot) cannot have lifted it above
# max_df. HEAVY_FLOOR is the partial index's predicate; the counter is checked once a second.
HEAVY_FLOOR = 50
# A scoped index (the app: a user's collection and its archives) decides which features are
# too common to be evidence WITHIN its scope (`postings`), so what one user uploads never
# changes what another's check finds. The document frequency over ALL documents then only
# bounds a lookup's work: features in more documents than this (or than the detector's
# share of the whole index, when larger) are not fetched at all.
GUARD_DF_FLOOR = 10_000
_ADDS_SLOTS = 8
_HEAVY_CHECK_SECONDS = 1.0

_HEAVY: dict[tuple[str, str, str], HeavyFeatures] = {}  # per database server and name
# The indexed-document counter (migration 0008) is append-only; every COMPACT_EVERY-th
# add_many of a process folds its rows.
COUNT_TABLE = "documents_index_documents"
FORGET_DOCUMENTS = "documents_index_forget_documents"  # migration 0012
COMPACT_EVERY = 64
_ADDS_SINCE_COMPACTION: dict[tuple[str, str], int] = {}


class IndexVersionError(ValueError):
    """An analysis made by another feature model was offered to this index."""


class PostgresSentenceIndex:
    """`detection.SentenceIndex` over the posting table.

    Lookups see every indexed document of `model_version`, or only those of `collections`
    (the app: a collection plus its archives, any size), or only the `documents` ids given.
    """

    def __init__(
        self,
        *,
        model_version: str,
        documents: Collection[int] | None = None,
        collections: Collection[int] | None = None,
        using: str = "default",
    ) -> None:
        if not model_version:
            raise IndexVersionError("PostgresSentenceIndex needs the model_version it serves.")
        if documents is not None and collections is not None:
            raise ValueError("Scope the index by documents or by collections, not both.")
        self.model_version = model_version
        self.using = using
        self._requested_scope = (
            None if documents is None else np.unique(np.fromiter(documents, np.int64))
        )  # the lookup's binary parameter, built once
        self._collections = None if collections is None else sorted(set(collections))
        # The features a scoped lookup left out for being in more than max_df documents of
        # the scope (the pipeline tells the user how much of the text that concerned), and
        # for each document of the scope holding some of them, how many postings it held.
        self.too_common = np.empty(0, np.int64)
        self.too_common_holders: Counter[int] = Counter()

    # --- writes -------------------------------------------------------------------------

    def add(self, document_id: int, analysis: AnalysisLike) -> int:
        """Index one document's sentences; returns the number of postings written."""
        return self.add_many([(document_id, analysis)])

    def add_many(self, items: Iterable[tuple[int, AnalysisLike]]) -> int:
        """Bulk-load documents with COPY and bump the document frequency of their features.

        The caller must have removed earlier postings of these documents (see `remove_many`).
        """
        items = list(items)
        for document_id, analysis in items:
            self._check_version(document_id, analysis)
        if not items:
            return 0
        with transaction.atomic(using=self.using):
            columns = self._copy_postings(items)
            written = len(columns.features)
            self._increment_df(columns)
            self._mark_indexed([document_id for document_id, _ in items])
            self._count_adds(len(items))
            if written >= ANALYZE_AFTER_ROWS:
                self.analyze()
            self._compact_now_and_then()  # last: it locks counter rows until commit
        return written

    def remove(self, document_id: int) -> None:
        self.remove_many([document_id])

    def remove_many(self, document_ids: Collection[int]) -> None:
        """Delete the documents' postings and take them out of the document frequencies."""
        ids = sorted(set(document_ids))
        if not ids:
            return
        with transaction.atomic(using=self.using), connections[self.using].cursor() as cursor:
            # The function the delete trigger calls too (migration 0012): postings by each
            # document's ref range, df lowered with its rows locked in feature order.
            cursor.execute(f"SELECT {FORGET_DOCUMENTS}(%s::bigint[])", [ids])
            self._mark_removed(ids)

    def compact_document_count(self) -> None:
        """Fold the appended rows of the indexed-document counter (migration 0008) into one
        per model, so `document_count()` sums a few rows. Safe beside writers: they only
        append, and rows appended after this statement's snapshot are left for next time."""
        with connections[self.using].cursor() as cursor:
            cursor.execute(
                f"WITH gone AS (DELETE FROM {COUNT_TABLE} RETURNING model_version, n)"
                f" INSERT INTO {COUNT_TABLE} (model_version, n)"
                " SELECT model_version, sum(n) FROM gone GROUP BY model_version"
            )

    def _compact_now_and_then(self) -> None:
        key = (self.using, str(connections[self.using].settings_dict["NAME"]))
        _ADDS_SINCE_COMPACTION[key] = _ADDS_SINCE_COMPACTION.get(key, 0) + 1
        if _ADDS_SINCE_COMPACTION[key] >= COMPACT_EVERY:
            _ADDS_SINCE_COMPACTION[key] = 0
            self.compact_document_count()

    def analyze(self) -> None:
        """Refresh planner statistics after large loads."""
        with connections[self.using].cursor() as cursor:
            cursor.execute(f"ANALYZE {POSTING_TABLE}")
            cursor.execute(f"ANALYZE {DF_TABLE}")

    def vacuum(self) -> None:
        """VACUUM (ANALYZE) the postings and df after a bulk load, outside any transaction:
        sets the visibility map, so lookups are Index Only Scans without heap visits at once
        (autovacuum does the same after 2 % new rows, migration 0004)."""
        connection = connections[self.using]
        if connection.in_atomic_block:
            raise RuntimeError("VACUUM cannot run inside a transaction; call vacuum() outside.")
        with connection.cursor() as cursor:
            cursor.execute(f"VACUUM (ANALYZE) {POSTING_TABLE}")
            cursor.execute(f"VACUUM (ANALYZE) {DF_TABLE}")

    # --- the SentenceIndex protocol -----------------------------------------------------

    def postings(self, features: Collection[int], *, max_df: int | None) -> Postings:
        """All postings of `features` with document frequency <= max_df, in one statement
        (`documents.pg_lookup`: routed to the hash partitions in the client, df probed only
        for the heavy features, Index Only Scans of the covering btrees, prepared once per
        connection), as two numpy arrays (features and sentence references) decoded from one
        binary row, no Python object per posting."""
        if not len(features):
            return Postings.empty()
        if max_df is None or not self._scoped:
            return self._fetch(features, max_df)
        guard = max(max_df, GUARD_DF_FLOOR, int(DEFAULT_CONFIG.max_df_fraction * self._count()))
        found = self._fetch(features, guard)
        common = common_within(found, max_df)
        if len(common):
            self.too_common = np.union1d(self.too_common, common)
            holders = unpack_refs(found.refs[np.isin(found.features, common)])[0]
            documents, counts = np.unique(holders, return_counts=True)
            self.too_common_holders.update(
                dict(zip(documents.tolist(), counts.tolist(), strict=True))
            )
        return _without(found, common)

    @property
    def _scoped(self) -> bool:
        return self._requested_scope is not None or self._collections is not None

    def _fetch(self, features: Collection[int], max_df: int | None) -> Postings:
        connection = connections[self.using]
        heavy = None if max_df is None else self.heavy_features(max_df)
        sql, params = self.lookup_statement(features, max_df=max_df, heavy=heavy)
        connection.ensure_connection()
        # Django's error translation (and its broken-connection bookkeeping) around the raw
        # psycopg cursor, as for its own cursors.
        with connection.wrap_database_errors, lookup_cursor(connection.connection) as cursor:
            cursor.execute(sql, params, binary=True, prepare=True)
            row = cursor.fetchone()
        if row is None or row[0] is None:  # array_agg of no rows
            return Postings.empty()
        return Postings(row[0], row[1])

    def lookup_statement(
        self, features: Collection[int], *, max_df: int | None, heavy: HeavyFeatures | None = None
    ) -> tuple[str, dict[str, object]]:
        """The SQL and named parameters `postings` runs (for EXPLAIN in the benchmark)."""
        scope, scope_params = self._scope()
        sql, params = lookup_statement(
            features, version=self.model_version, max_df=max_df, heavy=heavy, scope=scope
        )
        return sql, {**params, **scope_params}

    def heavy_features(self, max_df: int) -> HeavyFeatures | None:
        """This process's heavy-feature list for `max_df`, re-read when the documents added
        since leave no room; None inside a transaction (it must hold committed state only) or
        when max_df is at the floor."""
        connection = connections[self.using]
        if connection.in_atomic_block or max_df <= HEAVY_FLOOR:
            return None
        settings = connection.settings_dict
        key = (str(settings["HOST"]), str(settings["PORT"]), str(settings["NAME"]))
        cached = _HEAVY.get(key)
        now = time.monotonic()
        if cached is not None and cached.usable(max_df):
            if now - cached.checked < _HEAVY_CHECK_SECONDS:
                return cached
            with connection.cursor() as cursor:
                cursor.execute(f"SELECT {ADDS}")
                if cursor.fetchone()[0] <= cached.adds + max_df - cached.floor:
                    _HEAVY[key] = replace(cached, checked=now)
                    return _HEAVY[key]
        floor = max(HEAVY_FLOOR, max_df // 2)
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT {ADDS}, coalesce(array_agg(feature ORDER BY feature), '{{}}')"
                f" FROM {DF_TABLE} WHERE df > {int(floor)}"
            )
            adds, features = cursor.fetchone()
        _HEAVY[key] = HeavyFeatures(floor, int(adds), np.array(features, dtype=np.int64), now)
        return _HEAVY[key]

    def document_count(self) -> int:
        """Indexed documents of this model version in the index's scope: the population
        whose share `max_df` is (a scoped index counts document frequencies within it)."""
        if not self._scoped:
            return self._count()
        column, scope = (
            ("id", self._requested_scope.tolist())
            if self._requested_scope is not None
            else ("collection_id", self._collections)
        )
        with connections[self.using].cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM documents_document WHERE indexed"
                f" AND model_version = %s AND {column} = ANY(%s::bigint[])",
                [self.model_version, scope],
            )
            return int(cursor.fetchone()[0])

    def _count(self) -> int:
        """Indexed documents of this model version, all users (what the df table counts)."""
        with connections[self.using].cursor() as cursor:
            # Kept equal to count(*) of the indexed documents by triggers (migration 0008):
            # counting the rows took ~11 ms per check at 100k documents.
            cursor.execute(
                f"SELECT coalesce(sum(n), 0) FROM {COUNT_TABLE} WHERE model_version = %s",
                [self.model_version],
            )
            return int(cursor.fetchone()[0])

    def spans(
        self, wanted: Mapping[int, Collection[int]]
    ) -> Mapping[int, Mapping[int, tuple[int, int]]]:
        """The spans of every candidate source in one query: the documents' span arrays
        (a query per source cost ~0.4 ms, 35 ms for the ~80 sources of a fully copied
        10,000-character document)."""
        if not wanted:
            return {}
        with connections[self.using].cursor() as cursor:
            cursor.execute(
                "SELECT id, sentence_starts, sentence_ends FROM documents_document"
                " WHERE id = ANY(%s::bigint[])",
                [sorted(wanted)],
            )
            rows = cursor.fetchall()
        found: dict[int, dict[int, tuple[int, int]]] = {}
        for document, starts, ends in rows:
            found[document] = {
                n: (starts[n], ends[n]) for n in wanted[document] if 0 <= n < len(starts)
            }
        return found

    # --- helpers ------------------------------------------------------------------------

    def _check_version(self, document_id: int, analysis: AnalysisLike) -> None:
        if analysis.model_version != self.model_version:
            raise IndexVersionError(
                f"Document {document_id} was analysed with model {analysis.model_version!r} but "
                f"this index serves {self.model_version!r}; re-analyse it or open an index "
                "for that version."
            )

    def _scope(self) -> tuple[str, dict[str, object]]:
        """The final SELECT over the hits, if the index is scoped, and its parameters."""
        if self._requested_scope is not None:
            return SCOPE_DOCUMENTS, {"scope": Int8Array(self._requested_scope)}
        if self._collections is None:
            return "", {}
        return SCOPE_COLLECTIONS, {"collections": self._collections}

    def _copy_postings(self, items: list[tuple[int, AnalysisLike]]) -> PostingColumns:
        """COPY the documents' postings; returns them as columns (for the df increments)."""
        columns = posting_columns(items)
        with connections[self.using].cursor() as cursor:
            model = self._model_id(cursor)
            with cursor.copy(
                f"COPY {POSTING_TABLE} {COPY_COLUMNS} FROM STDIN (FORMAT BINARY)"
            ) as copy:
                copy.write(COPY_SIGNATURE + copy_rows(columns, model) + COPY_TRAILER)
        return columns

    def _model_id(self, cursor: CursorWrapper) -> int:
        """The id of this index's feature model, registered on first use (looked up first:
        every INSERT attempt would use up a value of the smallint identity)."""
        select = f"SELECT id FROM {MODEL_TABLE} WHERE model_version = %s"
        cursor.execute(select, [self.model_version])
        row = cursor.fetchone()
        if row is None:
            cursor.execute(
                f"INSERT INTO {MODEL_TABLE} (model_version) VALUES (%s)"
                " ON CONFLICT (model_version) DO NOTHING RETURNING id",
                [self.model_version],
            )
            row = cursor.fetchone()
            if row is None:  # a concurrent transaction registered it first: read it again
                cursor.execute(select, [self.model_version])
                row = cursor.fetchone()
        return int(row[0])

    def _increment_df(self, columns: PostingColumns) -> None:
        """Add the batch's df increments in one sorted INSERT ... ON CONFLICT over two binary
        arrays built by numpy (measured ~15 % cheaper than COPY into a staging table and an
        INSERT ... SELECT from it; text array literals were dearer still: the server parses
        them). Sorted upserts take row locks in one order, so concurrent workers cannot
        deadlock."""
        features, counts = df_increments(columns)
        if not len(features):
            return
        connection = connections[self.using]
        connection.ensure_connection()
        with connection.wrap_database_errors, lookup_cursor(connection.connection) as cursor:
            cursor.execute(
                f"INSERT INTO {DF_TABLE} (feature, df)"
                " SELECT * FROM unnest(%s::bigint[], %s::bigint[]::int[]) ORDER BY 1"
                f" ON CONFLICT (feature) DO UPDATE SET df = {DF_TABLE}.df + EXCLUDED.df",
                [Int8Array(features), Int8Array(counts.astype(np.int64))],
            )

    def _count_adds(self, documents: int) -> None:
        """Count added documents (the bound of the heavy-feature cache), in a slot of the
        backend so concurrent writers rarely wait on one row."""
        with connections[self.using].cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {ADDS_TABLE} (slot, n) VALUES (pg_backend_pid() %% %s, %s)"
                f" ON CONFLICT (slot) DO UPDATE SET n = {ADDS_TABLE}.n + EXCLUDED.n",
                [_ADDS_SLOTS, documents],
            )

    def _mark_indexed(self, ids: Sequence[int]) -> None:
        """Record on the rows that their postings are in, and of which model version."""
        with connections[self.using].cursor() as cursor:
            cursor.execute(
                "UPDATE documents_document SET indexed = true, model_version = %s"
                " WHERE id = ANY(%s::bigint[])",
                [self.model_version, list(ids)],
            )

    def _mark_removed(self, ids: Sequence[int]) -> None:
        with connections[self.using].cursor() as cursor:
            cursor.execute(
                "UPDATE documents_document SET indexed = false WHERE id = ANY(%s::bigint[])",
                [list(ids)],
            )


def within_document_frequency(found: Postings, max_df: int) -> Postings:
    """The postings of the features found in at most `max_df` distinct documents of `found`
    (a scoped lookup's own document frequency)."""
    return _without(found, common_within(found, max_df))


def common_within(found: Postings, max_df: int) -> np.ndarray:
    """The features of `found` in more than `max_df` distinct documents of it (a feature
    repeated inside one document counts once, as in the df table)."""
    if not len(found):
        return np.empty(0, np.int64)
    documents = unpack_refs(found.refs)[0]
    pairs = np.unique(np.stack([found.features, documents]), axis=1)
    features, counts = np.unique(pairs[0], return_counts=True)
    return features[counts > max_df]


def _without(found: Postings, features: np.ndarray) -> Postings:
    if not len(features):
        return found
    keep = ~np.isin(found.features, features)
    return Postings(found.features[keep], found.refs[keep])
