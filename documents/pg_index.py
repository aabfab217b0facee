"""The inverted index of seed 003 (feature -> sentence postings) in PostgreSQL.

Layout (migrations 0002-0005 of `documents/migrations/`):

- `documents_posting(feature bigint, document_id bigint, sentence int, size smallint,
  model smallint)`: one flat row per (feature, sentence), HASH-partitioned by feature into
  `POSTING_PARTITIONS` tables, with a COVERING btree `(feature) INCLUDE (model, document_id,
  sentence, size)` (lookups are Index Only Scans) and a btree on `document_id` (removal).
  `model` is the id of the feature model in `documents_index_model`.
- `documents_feature_df(feature bigint, df int)`, primary key `(feature) INCLUDE (df)`: in how
  many indexed documents a feature occurs. Kept in step with the postings on add/remove so the
  query can skip features too common to be evidence of copying (the detector passes `max_df`).
- `documents_index_adds`: how many documents were ever added (the bound that lets a process
  cache its list of heavy features, see `heavy_features`).

Deleting Document rows (in any way) deletes their postings and decrements df through the
trigger of migration 0003; `remove_many` is for re-indexing documents that stay.

Postings are loaded with COPY (binary, built column-wise) and looked up in ONE round trip per
query document (see `postings`).
The index is bound to one `model_version`: features of different models are not comparable,
so adding an analysis of another version raises and lookups only return documents of its own.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import chain, repeat
from typing import NamedTuple, Protocol

import numpy as np
import psycopg
from django.db import connections, transaction
from django.db.backends.utils import CursorWrapper

from detection import Posting

POSTING_TABLE = "documents_posting"
DF_TABLE = "documents_feature_df"
MODEL_TABLE = "documents_index_model"  # feature model ids stored on the postings (0004)
POSTING_PARTITIONS = 8
# After loading this many postings in one call the planner statistics are refreshed, so that
# lookups keep using the feature index instead of guessing from an empty table.
ANALYZE_AFTER_ROWS = 200_000
# The heavy-feature cache (migration 0005): features with df above max(HEAVY_FLOOR, max_df // 2)
# are listed per process; every other feature skips the df probe while the documents added
# since (counted in ADDS_TABLE, read in the lookup's own snapshot) cannot have lifted it above
# max_df. HEAVY_FLOOR is the partial index's predicate; the counter is checked once a second.
HEAVY_FLOOR = 50
ADDS_TABLE = "documents_index_adds"
_ADDS_SLOTS = 8
_ADDS = f"(SELECT coalesce(sum(n), 0) FROM {ADDS_TABLE})"
_HEAVY_CHECK_SECONDS = 1.0
_SMALLINT_MAX = 32_767

# One posting row of COPY ... (FORMAT BINARY): field count, then (length, big-endian value)
# per column. Built column-wise with numpy instead of one `write_row` per posting: the
# Python-side cost of a COPY was ~2.7 us per posting (docs/benchmarks.md).
_COPY_ROW = np.dtype(
    [("fields", ">i2"), ("feature_len", ">i4"), ("feature", ">i8"), ("document_len", ">i4"),
     ("document", ">i8"), ("sentence_len", ">i4"), ("sentence", ">i4"), ("size_len", ">i4"),
     ("size", ">i2"), ("model_len", ">i4"), ("model", ">i2")]
)  # fmt: skip
_COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + bytes(8)  # signature, flags, header extension
_COPY_TRAILER = b"\xff\xff"
_DF_ROW = np.dtype([("fields", ">i2"), ("feature_len", ">i4"), ("feature", ">i8"),
                    ("n_len", ">i4"), ("n", ">i4")])  # fmt: skip
_DF_STAGE = "documents_feature_df_stage"  # a temporary table: one per database session


# One branch per hash partition, each probing its covering btree with only the features
# hashed to it, keeping postings of this index's feature model (no join with the documents).
_ROUTED_HITS = " UNION ALL ".join(
    f"SELECT feature, document_id, sentence, size FROM {POSTING_TABLE}_p{r}"
    f" WHERE feature = ANY(ARRAY(SELECT feature FROM wanted WHERE"
    f" satisfies_hash_partition('{POSTING_TABLE}'::regclass, {POSTING_PARTITIONS}, {r}, feature)))"
    f" AND model = (SELECT id FROM model)"
    for r in range(POSTING_PARTITIONS)
)
_MODEL = f"SELECT id FROM {MODEL_TABLE} WHERE model_version = %(version)s"


@dataclass(frozen=True)
class HeavyFeatures:
    """Features whose df exceeded `floor` when `adds` documents had been added (one snapshot)."""

    floor: int
    adds: int
    features: frozenset[int]
    checked: float  # time.monotonic() when the counter was last seen within the bound

    def usable(self, max_df: int) -> bool:
        return self.floor < max_df


_HEAVY: dict[tuple[str, str, str], HeavyFeatures] = {}  # per database server and name


class IndexVersionError(ValueError):
    """An analysis made by another feature model was offered to this index."""


class _Sentence(Protocol):
    index: int
    features: Sequence[int]


class _Analysis(Protocol):
    model_version: str

    @property
    def sentences(self) -> Sequence[_Sentence]: ...


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
        self._requested_scope = None if documents is None else sorted(set(documents))
        self._collections = None if collections is None else sorted(set(collections))

    # --- writes -------------------------------------------------------------------------

    def add(self, document_id: int, analysis: _Analysis) -> int:
        """Index one document's sentences; returns the number of postings written."""
        return self.add_many([(document_id, analysis)])

    def add_many(self, items: Iterable[tuple[int, _Analysis]]) -> int:
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
        return written

    def remove(self, document_id: int) -> None:
        self.remove_many([document_id])

    def remove_many(self, document_ids: Collection[int]) -> None:
        """Delete the documents' postings and take them out of the document frequencies."""
        ids = sorted(set(document_ids))
        if not ids:
            return
        with transaction.atomic(using=self.using), connections[self.using].cursor() as cursor:
            cursor.execute(
                f"""
                WITH gone AS (
                    DELETE FROM {POSTING_TABLE} WHERE document_id = ANY(%s::bigint[])
                    RETURNING document_id, feature
                )
                SELECT feature, count(DISTINCT document_id) FROM gone
                GROUP BY feature ORDER BY feature
                """,
                [ids],
            )
            decrements = cursor.fetchall()
            self._decrement_df(cursor, decrements)
            self._mark_removed(ids)

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

    def postings(self, features: Collection[int], *, max_df: int | None) -> list[Posting]:
        """All postings of `features` with document frequency <= max_df, in one query.

        Steps in one statement, each forced by a MATERIALIZED CTE (measured with EXPLAIN
        ANALYZE, docs/benchmarks.md):
        1. the df table first (an Index Only Scan of its covering primary key), so features
           too common to matter never reach the postings;
        2. each hash partition probed only with ITS features (`satisfies_hash_partition`):
           one array over the parent probes every partition's btree with every feature;
           an Index Only Scan of the covering btree, filtered on the model id in the index
           (the version check without a join);
        3. a scope, if any: the documents ids given, or the collections checked on the
           documents found (primary-key probes).
        Rows come back in binary and become `Posting`s without a Python call per field.
        """
        if not features:
            return []
        connection = connections[self.using]
        heavy = None if max_df is None else self.heavy_features(max_df)
        sql, params = self.lookup_statement(features, max_df=max_df, heavy=heavy)
        connection.ensure_connection()
        with psycopg.Cursor(connection.connection) as cursor:
            cursor.execute(sql, params, binary=True)
            return list(map(tuple.__new__, repeat(Posting), cursor.fetchall()))

    def lookup_statement(
        self, features: Collection[int], *, max_df: int | None, heavy: HeavyFeatures | None = None
    ) -> tuple[str, dict[str, object]]:
        """The SQL and named parameters `postings` runs (for EXPLAIN in the benchmark)."""
        wanted = sorted(set(features))
        params: dict[str, object] = {"wanted": wanted, "version": self.model_version}
        if max_df is None:
            kept = "SELECT unnest(%(wanted)s::bigint[]) AS feature"
        elif heavy is None:
            kept = f"SELECT feature FROM {DF_TABLE} WHERE feature = ANY(%(wanted)s::bigint[])"
            kept += " AND df <= %(max_df)s"
        else:
            params["heavy"] = [f for f in wanted if f in heavy.features]
            params["wanted"] = [f for f in wanted if f not in heavy.features]
            params["valid_until"] = heavy.adds + max_df - heavy.floor
            # Light features skip the df probe while the bound holds (else they are probed).
            probe = f"SELECT feature FROM {DF_TABLE} WHERE df <= %(max_df)s AND feature = ANY"
            kept = (
                f"SELECT unnest(%(wanted)s::bigint[]) AS feature WHERE {_ADDS} <= %(valid_until)s"
                f" UNION ALL {probe}(%(wanted)s::bigint[]) AND {_ADDS} > %(valid_until)s"
                f" UNION ALL {probe}(%(heavy)s::bigint[])"
            )
        if max_df is not None:
            params["max_df"] = max_df
        scope_sql, scope_params = self._scope_filter()
        query = (
            f"WITH model AS MATERIALIZED ({_MODEL}), wanted AS MATERIALIZED ({kept}),"
            f" hits AS MATERIALIZED ({_ROUTED_HITS}) {scope_sql}"
        )
        return query, {**params, **scope_params}

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
                cursor.execute(f"SELECT {_ADDS}")
                if cursor.fetchone()[0] <= cached.adds + max_df - cached.floor:
                    _HEAVY[key] = replace(cached, checked=now)
                    return _HEAVY[key]
        floor = max(HEAVY_FLOOR, max_df // 2)
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT {_ADDS}, coalesce(array_agg(feature), '{{}}')"
                f" FROM {DF_TABLE} WHERE df > {int(floor)}"
            )
            adds, features = cursor.fetchone()
        _HEAVY[key] = HeavyFeatures(floor, int(adds), frozenset(features), now)
        return _HEAVY[key]

    def document_count(self) -> int:
        """Indexed documents of this model version (the population the df values count)."""
        with connections[self.using].cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM documents_document WHERE indexed AND model_version = %s",
                [self.model_version],
            )
            return int(cursor.fetchone()[0])

    def spans(self, document: int, sentences: Collection[int]) -> Mapping[int, tuple[int, int]]:
        numbers = sorted(set(sentences))
        if not numbers:
            return {}
        with connections[self.using].cursor() as cursor:
            cursor.execute(
                'SELECT number, start, "end" FROM documents_sentence'
                " WHERE document_id = %s AND number = ANY(%s::int[])",
                [document, numbers],
            )
            return {number: (start, end) for number, start, end in cursor.fetchall()}

    # --- helpers ------------------------------------------------------------------------

    def _check_version(self, document_id: int, analysis: _Analysis) -> None:
        if analysis.model_version != self.model_version:
            raise IndexVersionError(
                f"Document {document_id} was analysed with model {analysis.model_version!r} but "
                f"this index serves {self.model_version!r}; re-analyse it or open an index "
                "for that version."
            )

    def _scope_filter(self) -> tuple[str, dict[str, object]]:
        """The final SELECT over `hits`: all of them, or those of the scope."""
        select = "SELECT h.feature, h.document_id, h.sentence, h.size FROM hits h"
        if self._requested_scope is not None:
            return f"{select} WHERE h.document_id = ANY(%(scope)s::bigint[])", {
                "scope": self._requested_scope
            }
        if self._collections is None:
            return select, {}
        # Collections are checked on the documents found, so scoping to a large archive
        # costs nothing more than the primary-key probes.
        return (
            f", found AS MATERIALIZED (SELECT id FROM documents_document"
            f" WHERE id = ANY(ARRAY(SELECT DISTINCT document_id FROM hits))"
            f" AND collection_id = ANY(%(collections)s::bigint[]))"
            f" {select} WHERE h.document_id IN (SELECT id FROM found)",
            {"collections": self._collections},
        )

    def _copy_postings(self, items: list[tuple[int, _Analysis]]) -> PostingColumns:
        """COPY the documents' postings; returns them as columns (for the df increments)."""
        columns = posting_columns(items)
        with connections[self.using].cursor() as cursor:
            model = self._model_id(cursor)
            with cursor.copy(
                f"COPY {POSTING_TABLE} (feature, document_id, sentence, size, model)"
                " FROM STDIN (FORMAT BINARY)"
            ) as copy:
                copy.write(_COPY_SIGNATURE + copy_rows(columns, model) + _COPY_TRAILER)
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
        """Add the batch's df increments: COPY into a session-temporary staging table, then one
        sorted INSERT ... SELECT ... ON CONFLICT (measured cheaper than an unnest of two array
        literals, whose text the server has to parse)."""
        features, counts = df_increments(columns)
        if not len(features):
            return
        rows = np.empty(len(features), dtype=_DF_ROW)
        rows["fields"], rows["feature_len"], rows["n_len"] = 2, 8, 4
        rows["feature"], rows["n"] = features, counts
        with connections[self.using].cursor() as cursor:
            cursor.execute(
                f"CREATE TEMP TABLE IF NOT EXISTS {_DF_STAGE} (feature bigint, n integer)"
            )
            with cursor.copy(f"COPY {_DF_STAGE} FROM STDIN (FORMAT BINARY)") as copy:
                copy.write(_COPY_SIGNATURE + rows.tobytes() + _COPY_TRAILER)
            # Emptied by the same statement. Sorted upserts take row locks in one order, so
            # concurrent workers cannot deadlock.
            cursor.execute(
                f"WITH staged AS (DELETE FROM {_DF_STAGE} RETURNING feature, n)"
                f" INSERT INTO {DF_TABLE} (feature, df) SELECT feature, n FROM staged"
                f" ORDER BY feature ON CONFLICT (feature)"
                f" DO UPDATE SET df = {DF_TABLE}.df + EXCLUDED.df"
            )

    def _decrement_df(self, cursor: CursorWrapper, decrements: list[tuple[int, int]]) -> None:
        if not decrements:
            return
        features = [feature for feature, _ in decrements]
        # Lock the rows in feature order first (as the sorted upsert does): no deadlock with
        # a concurrent add or remove touching the same features.
        cursor.execute(
            f"SELECT feature FROM {DF_TABLE} WHERE feature = ANY(%s::bigint[])"
            " ORDER BY feature FOR UPDATE",
            [features],
        )
        cursor.execute(
            f"""
            UPDATE {DF_TABLE} AS f SET df = f.df - t.n
            FROM unnest(%s::bigint[], %s::int[]) AS t(feature, n)
            WHERE f.feature = t.feature
            """,
            [features, [n for _, n in decrements]],
        )
        cursor.execute(
            f"DELETE FROM {DF_TABLE} WHERE feature = ANY(%s::bigint[]) AND df <= 0", [features]
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


class PostingColumns(NamedTuple):
    """The postings of some documents as parallel int64 arrays (one element per posting)."""

    features: np.ndarray
    documents: np.ndarray
    sentences: np.ndarray
    sizes: np.ndarray


def posting_columns(items: Sequence[tuple[int, _Analysis]]) -> PostingColumns:
    """Flatten documents' sentences into posting columns, without a Python object per posting."""
    sentences = [(document, s) for document, analysis in items for s in analysis.sentences]
    lengths = np.fromiter((len(s.features) for _, s in sentences), np.int64, len(sentences))
    total = int(lengths.sum())
    features = np.fromiter(chain.from_iterable(s.features for _, s in sentences), np.int64, total)
    per_sentence = [
        np.fromiter((d for d, _ in sentences), np.int64, len(sentences)),
        np.fromiter((s.index for _, s in sentences), np.int64, len(sentences)),
        np.minimum(lengths, _SMALLINT_MAX),
    ]
    documents, numbers, sizes = (np.repeat(column, lengths) for column in per_sentence)
    return PostingColumns(features, documents, numbers, sizes)


def copy_rows(columns: PostingColumns, model: int) -> bytes:
    """The rows of a binary COPY (without signature and trailer) of `columns`, feature model
    id `model`."""
    rows = np.empty(len(columns.features), dtype=_COPY_ROW)
    rows["fields"] = 5
    rows["feature_len"] = rows["document_len"] = 8
    rows["sentence_len"] = 4
    rows["size_len"] = rows["model_len"] = 2
    rows["model"] = model
    rows["feature"] = columns.features
    rows["document"] = columns.documents
    rows["sentence"] = columns.sentences
    rows["size"] = columns.sizes
    return rows.tobytes()


def df_increments(columns: PostingColumns) -> tuple[np.ndarray, np.ndarray]:
    """(features ascending, in how many of the documents each occurs): df counts a feature
    once per document however many of its sentences hold it."""
    if not len(columns.features):
        return columns.features, columns.features
    order = np.lexsort((columns.documents, columns.features))
    features, documents = columns.features[order], columns.documents[order]
    first = np.ones(len(features), dtype=bool)
    first[1:] = (features[1:] != features[:-1]) | (documents[1:] != documents[:-1])
    return np.unique(features[first], return_counts=True)
