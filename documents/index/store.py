"""The Low-IDF-Sig inverted index (feature -> sentence postings) in PostgreSQL.

Layout (migrations 0002-0011 of `documents/migrations/`):

- `documents_posting(feature bigint, model smallint, ref bigint)`: one flat row per
  (feature, sentence), HASH-partitioned by feature into `POSTING_PARTITIONS` tables, with a
  COVERING btree `(feature) INCLUDE (model, ref)` (lookups are Index Only Scans) and a BRIN
  (minmax-multi) index on `ref` (removal: a document's postings are the ref range
  `id << 32 .. (id << 32) | (2^32 - 1)`). `ref` packs document, sentence and the sentence's feature
  count (`detection.pack_refs`, migration 0011); `model` is the id of the feature model in
  `documents_index_model`. The same table holds the documents' *term postings*
  (`detection.retrieval`: one per distinct normalised word and document, its id a keyed hash
  apart from every feature, the reference's sentence field the document's norm and its size
  field the word's count), looked up by `term_postings`.
- `documents_feature_df(feature bigint, df int)`, primary key `(feature) INCLUDE (df)`: the
  document frequency of the HEAVY features only (migration 0019): those a lookup found in
  more than `HEAVY_FLOOR` documents, with the count it made. Nothing is counted at ingest (an
  exact df upsert per distinct feature cost more database time than the postings' COPY, for
  a table 85 % of whose rows said "1"); lookups count what they fetch, record the crowded
  features, and skip recorded ones above their limit. Removing documents lowers the recorded
  counts (migration 0012's function), so a recorded df never exceeds the true one.
- `documents_heavy_generation`: a sequence bumped whenever lookups record heavy features (the
  processes' cached lists are re-read then, see `heavy_features`);
  `documents_index_documents`: how many documents are indexed per model, kept by triggers
  (`document_count`).
- Sentence spans: arrays on the document row (`spans`).

Deleting Document rows (in any way) deletes their postings and lowers recorded df through the
trigger of migration 0003; `remove_many` is for re-indexing documents that stay. Both run the
SQL function `documents_index_forget_documents` (migration 0012).

Postings are loaded with COPY (binary, built column-wise: `documents.index.copy`) and looked up
in ONE round trip per query document (`postings`, statement in `documents.index.lookup`).
The index is bound to one `model_version`: features of different models are not comparable,
so adding an analysis of another version raises and lookups only return documents of its own.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from functools import partial

import numpy as np
import psycopg
from django.db import connections, transaction
from django.db.backends.utils import CursorWrapper

from detection import DEFAULT_CONFIG, Postings, unpack_refs
from documents.index.copy import (
    COPY_COLUMNS,
    COPY_SIGNATURE,
    COPY_TRAILER,
    AnalysisLike,
    copy_rows,
    posting_columns,
)
from documents.index.lookup import (
    DF_TABLE,
    GENERATION,
    HEAVY_GENERATION,
    MODEL_TABLE,
    POSTING_PARTITIONS,
    POSTING_TABLE,
    SCOPE_COLLECTIONS,
    SCOPE_DOCUMENTS,
    HeavyFeatures,
    Int8Array,
    execute_prepared,
    lookup_cursor,
    lookup_statement,
)

__all__ = ["DF_TABLE", "POSTING_PARTITIONS", "POSTING_TABLE", "IndexVersionError",
           "PostgresSentenceIndex", "posting_columns"]  # fmt: skip

# After loading this many postings in one call the planner statistics are refreshed, so that
# lookups keep using the feature index instead of guessing from an empty table.
ANALYZE_AFTER_ROWS = 200_000
# Features a lookup finds in more than HEAVY_FLOOR documents are recorded in DF_TABLE (one
# count per feature, and again when one has grown past twice its recorded df).
HEAVY_FLOOR = 50
# A scoped index (the app: a user's collection and its archives) decides which features are
# too common to be evidence WITHIN its scope (`postings`), so what one user uploads never
# changes what another's check finds. The document frequency over ALL documents then only
# bounds a lookup's work: features in more documents than this (or than the detector's
# share of the whole index, when larger) are not fetched at all.
GUARD_DF_FLOOR = 10_000
_HEAVY_CHECK_SECONDS = 1.0
# A process re-reads the whole list when another one learnt something (the generation moved),
# which takes a while for hundreds of thousands of recorded features. It waits at least this
# many times its last re-read before looking again, so re-reading never takes more than ~5 %
# of its time (a stale list costs fetching more, never a wrong result).
_HEAVY_READ_SPACING = 20.0

_HEAVY: dict[tuple[str, str, str], HeavyFeatures] = {}  # per database server and name
# Two counts of one feature's documents, each made in its own snapshot, are both lower bounds:
# the larger is kept (and a row is only rewritten when it grows).
_KEEP_LARGER_DF = (
    f"ON CONFLICT (feature) DO UPDATE SET df = EXCLUDED.df WHERE EXCLUDED.df > {DF_TABLE}.df"
)
# `record_heavy_features(documents)` counts only the documents' own features when they are
# fewer than this share of the index, in at most MAX_RUNS runs of consecutive ids (the limit
# of the removal function, migration 0020); a larger load scans the whole index.
HEAVY_TARGETED_SHARE = 0.05
MAX_RUNS = 200
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
        """Bulk-load documents' postings with COPY (document frequencies are learnt by the
        lookups, not counted here).

        The caller must have removed earlier postings of these documents (see `remove_many`).
        """
        items = list(items)
        for document_id, analysis in items:
            self._check_version(document_id, analysis)
        if not items:
            return 0
        with transaction.atomic(using=self.using):
            written = self._copy_postings(items)
            self._mark_indexed([document_id for document_id, _ in items])
            if written >= ANALYZE_AFTER_ROWS:
                self.analyze()
            self._compact_now_and_then()  # last: it locks counter rows until commit
        return written

    def remove(self, document_id: int) -> None:
        self.remove_many([document_id])

    def remove_many(self, document_ids: Collection[int]) -> None:
        """Delete the documents' postings and take them out of the recorded frequencies."""
        ids = sorted(set(document_ids))
        if not ids:
            return
        with transaction.atomic(using=self.using), connections[self.using].cursor() as cursor:
            # The function the delete trigger calls too (migration 0012): postings by each
            # document's ref range, recorded df lowered with its rows locked in feature order.
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

    def vacuum(self, *, postings: bool = True) -> None:
        """VACUUM (ANALYZE) the postings (unless `postings` is False) and df after a bulk
        load, outside any transaction: sets the visibility map, so lookups are Index Only
        Scans without heap visits at once (autovacuum does the same after 2 % new rows,
        migration 0004)."""
        connection = connections[self.using]
        if connection.in_atomic_block:
            raise RuntimeError("VACUUM cannot run inside a transaction; call vacuum() outside.")
        with connection.cursor() as cursor:
            if postings:
                cursor.execute(f"VACUUM (ANALYZE) {POSTING_TABLE}")
            cursor.execute(f"VACUUM (ANALYZE) {DF_TABLE}")

    def record_heavy_features(self, documents: Collection[int] | None = None) -> int:
        """Count and record the heavy features (in more than HEAVY_FLOOR documents) of the
        index, as lookups do for the ones they meet; returns how many recorded counts were
        added or raised.

        For bulk loads (`manage.py import_archive`, the page's import): nothing checks their
        documents, so no lookup has met their common features, and the first checks against
        the new archive would fetch every posting of each until it learnt it (tens of
        thousands of postings for a query that keeps a few thousand).

        `documents`: the documents a load added. When they are few (under
        HEAVY_TARGETED_SHARE of the indexed documents, in at most MAX_RUNS runs of
        consecutive ids) only their features are counted, found through the ref ranges of
        their runs (the BRIN index). Otherwise, or without `documents`, each partition's
        covering btree is scanned in feature order (a streaming group count, no hash table)
        for the features with more than
        HEAVY_FLOOR postings.
        The candidates' documents are then counted exactly and upserted keeping the larger
        count, in feature order, one transaction per partition, over the postings of every
        model (as lookups count). Writers of the partition wait while it is counted: a
        removal committing between the count's snapshot and its upsert would leave a count
        above the true df, which must stay a lower bound."""
        runs = None
        if documents is not None:
            ids = np.unique(np.fromiter(documents, np.int64))
            if not len(ids):
                return 0
            runs = _runs(ids)
            if len(runs[0]) > MAX_RUNS or len(ids) > HEAVY_TARGETED_SHARE * self._count():
                runs = None  # a large load: scanning everything costs less per feature
        params: dict[str, object] = {"floor": HEAVY_FLOOR}
        if runs is not None:
            params.update(firsts=Int8Array(runs[0]), lasts=Int8Array(runs[1]))
        connection = connections[self.using]
        recorded = 0
        for r in range(POSTING_PARTITIONS):
            table = f"{POSTING_TABLE}_p{r}"
            if runs is None:
                candidates = (
                    f"SELECT feature FROM {table} GROUP BY feature HAVING count(*) > %(floor)s"
                )
            else:
                candidates = (
                    f"SELECT DISTINCT p.feature FROM {table} p"
                    " JOIN unnest(%(firsts)s, %(lasts)s) AS r(first, last)"
                    " ON p.ref BETWEEN r.first << 32 AND (r.last << 32) | 4294967295"
                )
            with transaction.atomic(using=self.using):
                connection.ensure_connection()
                with (
                    connection.wrap_database_errors,
                    lookup_cursor(connection.connection) as cursor,
                ):
                    cursor.execute(f"LOCK TABLE {table} IN SHARE MODE")
                    cursor.execute("SET LOCAL enable_hashagg = off")  # stream the btree's order
                    cursor.execute("SET LOCAL jit = off")  # compiling costs more than it saves
                    cursor.execute(
                        f"INSERT INTO {DF_TABLE} (feature, df)"
                        f" SELECT feature, count(DISTINCT ref >> 32) FROM {table}"
                        f" WHERE feature = ANY(ARRAY({candidates}))"
                        " GROUP BY feature HAVING count(DISTINCT ref >> 32) > %(floor)s"
                        f" ORDER BY feature {_KEEP_LARGER_DF}",
                        params,
                    )
                    changed = max(cursor.rowcount, 0)
                recorded += changed
                if changed:
                    transaction.on_commit(
                        partial(self._bump_generation, holding=False), using=self.using
                    )
        return recorded

    # --- the SentenceIndex protocol -----------------------------------------------------

    def postings(self, features: Collection[int], *, max_df: int | None) -> Postings:
        """All postings of `features` in at most `max_df` documents (of the scope, for a scoped
        index), in one statement (`documents.index.lookup`: routed to the hash partitions in the
        client, the recorded df checked once for the features listed above the guard, Index
        Only Scans of the covering btrees, prepared once per connection), as two numpy arrays
        (features and sentence references) decoded from one binary row, no Python object per
        posting.

        Features whose recorded df exceeds the lookup's guard (`max_df`; for a scoped index
        the larger of it, `GUARD_DF_FLOOR` and the detector's share of all documents) are not
        fetched; the documents of the others are counted in what came back, exactly."""
        found, common = self._guarded(features, max_df)
        if self._scoped and len(common):
            self.too_common = np.union1d(self.too_common, common)
            holders = unpack_refs(found.refs[np.isin(found.features, common)])[0]
            documents, counts = np.unique(holders, return_counts=True)
            self.too_common_holders.update(
                dict(zip(documents.tolist(), counts.tolist(), strict=True))
            )
        return _without(found, common)

    def term_postings(self, terms: Collection[int], *, max_df: int | None) -> Postings:
        """The term postings of `terms` (`detection.retrieval`), looked up as `postings`
        looks up features (they share the table: a term id is a keyed hash apart from every
        feature), without the note on too-common wording, which is about sentences."""
        return _without(*self._guarded(terms, max_df))

    def _guarded(
        self, features: Collection[int], max_df: int | None
    ) -> tuple[Postings, np.ndarray]:
        """The postings of `features` under the lookup's guard, and those of the features
        that are in more than `max_df` documents (of the scope, for a scoped index)."""
        if not len(features):
            return Postings.empty(), np.empty(0, np.int64)
        if max_df is None:
            return self._fetch(features, None)[0], np.empty(0, np.int64)
        guard = max_df
        if self._scoped:
            guard = max(max_df, GUARD_DF_FLOOR, int(DEFAULT_CONFIG.max_df_fraction * self._count()))
        found, crowded, heavy = self._fetch(features, guard)
        values, counts = _counted(found.features, min(HEAVY_FLOOR, max_df))
        if crowded is None:  # unscoped: the crowded features are counted in what came back
            crowded = values[counts > HEAVY_FLOOR], counts[counts > HEAVY_FLOOR]
        if heavy is not None:
            # Unscoped, what came back is every posting of its features (of this model): their
            # document frequency is counted there; a scoped lookup's, over the whole index.
            self._learn(*crowded, heavy=heavy, guard=guard, found=None if self._scoped else found)
        return found, _common(found, values[counts > max_df], max_df)

    @property
    def _scoped(self) -> bool:
        return self._requested_scope is not None or self._collections is not None

    def _fetch(
        self, features: Collection[int], guard: int | None
    ) -> tuple[Postings, tuple[np.ndarray, np.ndarray] | None, HeavyFeatures | None]:
        """The lookup: the postings, for a scoped lookup the features crowded before the
        scope was applied (and their posting counts), and the heavy list it used."""
        connection = connections[self.using]
        heavy = None if guard is None else self.heavy_features()
        asked = time.monotonic()
        sql, params = self.lookup_statement(features, guard=guard, heavy=heavy)
        # Prepared unless the database's OPTIONS decide about prepared statements themselves
        # (e.g. `prepare_threshold: None` behind a pooler that cannot keep them).
        lift = "prepare_threshold" not in connection.settings_dict.get("OPTIONS", {})
        # Django's error translation (and its broken-connection bookkeeping) around the raw
        # psycopg cursor, as for its own cursors.
        with connection.wrap_database_errors, lookup_cursor(connection.connection) as cursor:
            execute_prepared(cursor, sql, params, lift=lift)
            row = cursor.fetchone()
        assert row is not None  # an aggregate's one row
        self._saw_generation(int(row[-1]), asked)
        row = row[:-1]
        # The two arrays; NULL when no rows were aggregated.
        found = Postings.empty() if row[0] is None else Postings(row[0], row[1])
        crowded = None
        if len(row) > 2:  # scoped: counted before the scope was applied
            crowded = _array(row[2]), _array(row[3])
        return found, crowded, heavy

    def lookup_statement(
        self,
        features: Collection[int],
        *,
        guard: int | None,
        heavy: HeavyFeatures | None = None,
    ) -> tuple[str, dict[str, object]]:
        """The SQL and named parameters `postings` runs (for EXPLAIN in the benchmark)."""
        scope, scope_params = self._scope()
        sql, params = lookup_statement(
            features, version=self.model_version, guard=guard, heavy=heavy, scope=scope
        )
        return sql, {**params, **scope_params}

    def _learn(
        self,
        features: np.ndarray,
        postings: np.ndarray,
        *,
        heavy: HeavyFeatures,
        guard: int,
        found: Postings | None,
    ) -> None:
        """Record the document frequency of the crowded features (more than HEAVY_FLOOR
        postings in the lookup) not listed yet, or listed with less than half their postings
        now and more postings than the guard (they may have become too common to fetch).

        Counted in `found` when it holds every posting of the features, else over all
        postings: a recorded df never exceeds the true one (GREATEST keeps the larger of two
        counts; removals lower it). Only counts above HEAVY_FLOOR and above what this process
        lists are written: recounting a feature whose df did not grow (one with many postings
        per document stays "less than half its postings") writes nothing, opens no
        transaction and does not make the other processes re-read their lists. What is
        written goes without waiting for its WAL flush when the lookup is not inside a
        transaction (it is a lower bound: losing it at a crash costs nothing but a recount).
        """
        if not len(features):
            return
        recorded = heavy.recorded(features)
        new = (recorded == 0) | ((postings > 2 * recorded) & (postings > guard))
        if not new.any():
            return
        wanted = np.sort(features[new])
        connection = connections[self.using]
        if found is None:
            with connection.wrap_database_errors, lookup_cursor(connection.connection) as cursor:
                counted, dfs = self._document_frequencies(cursor, wanted)
        else:
            counted, dfs = _document_counts(found, wanted)
        grown = (dfs > HEAVY_FLOOR) & (dfs > heavy.recorded(counted))
        if grown.any():
            own = not connection.in_atomic_block  # else the caller's transaction carries it
            with transaction.atomic(using=self.using):
                with (
                    connection.wrap_database_errors,
                    lookup_cursor(connection.connection) as cursor,
                ):
                    if own:
                        cursor.execute("SET LOCAL synchronous_commit = off")
                    cursor.execute(
                        f"INSERT INTO {DF_TABLE} (feature, df)"
                        " SELECT * FROM unnest(%s::bigint[], %s::bigint[]::int[]) ORDER BY 1"
                        f" {_KEEP_LARGER_DF}",
                        [Int8Array(counted[grown]), Int8Array(dfs[grown])],
                    )
        # This process lists what it counted at once, those under the floor too (with their
        # count, never stored), so that the next lookups do not count them again; the other
        # processes re-read their lists once this is committed.
        key = self._heavy_key()
        _HEAVY[key] = _HEAVY.get(key, heavy).merged(counted, dfs)
        if grown.any():
            transaction.on_commit(self._bump_generation, using=self.using)

    def _document_frequencies(
        self, cursor: psycopg.Cursor, features: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(features, df) counted over all postings of the index."""
        cursor.execute(
            f"SELECT feature, count(DISTINCT ref >> 32) FROM {POSTING_TABLE}"
            " WHERE feature = ANY(%s) GROUP BY feature ORDER BY feature",
            [Int8Array(features)],
        )
        rows = cursor.fetchall()
        return (
            np.array([row[0] for row in rows], np.int64),
            np.array([row[1] for row in rows], np.int64),
        )

    def _heavy_key(self) -> tuple[str, str, str]:
        settings = connections[self.using].settings_dict
        return (str(settings["HOST"]), str(settings["PORT"]), str(settings["NAME"]))

    def _bump_generation(self, *, holding: bool = True) -> None:
        """Tell the other processes that the df table learnt (after the commit). When the
        generation moves by exactly this bump, no other process had announced anything since
        this process read its list, and the list already holds what it recorded (`holding`:
        `_learn` merged it): the list is taken as the new generation's instead of being
        re-read. A process that committed but has
        not bumped yet bumps later, so its rows are still re-read then.

        `record_heavy_features` writes counts its list does not hold (`holding=False`): the
        list is then read again at the next lookup. Taken as current, it would keep the old
        counts of everything the recording raised: features it found too common would still
        be fetched, and each lookup meeting one would count and write it again."""
        with connections[self.using].cursor() as cursor:
            cursor.execute(f"SELECT nextval('{HEAVY_GENERATION}')")
            bumped = int(cursor.fetchone()[0])
        key = self._heavy_key()
        cached = _HEAVY.get(key)
        if cached is None:
            return
        if holding and cached.generation == bumped - 1:
            _HEAVY[key] = replace(cached, generation=bumped)
        elif not holding:
            _HEAVY[key] = replace(cached, checked=-math.inf)  # look at the generation again

    def heavy_features(self) -> HeavyFeatures:
        """This process's list of the recorded heavy features, re-read when the generation
        changed (looked at most once a second, and after a slow re-read not before
        `_HEAVY_READ_SPACING` times it; a lookup that saw the list's own generation counts as
        a look, `_saw_generation`). Stale lists are safe: a feature learnt since is fetched
        (and counted), one listed above the guard is checked in the table. A re-read keeps
        the counts this process made under the floor, which no table holds
        (`HeavyFeatures.unstored_from`)."""
        connection = connections[self.using]
        key = self._heavy_key()
        cached = _HEAVY.get(key)
        now = time.monotonic()
        if cached is not None and now - cached.checked < cached.spacing:
            return cached
        connection.ensure_connection()
        with connection.wrap_database_errors, lookup_cursor(connection.connection) as cursor:
            cursor.execute(f"SELECT {GENERATION}")  # what every lookup also returns
            row = cursor.fetchone()
            assert row is not None  # a SELECT without FROM: one row
            generation = int(row[0])
            if cached is not None and cached.generation == generation:
                _HEAVY[key] = replace(cached, checked=now)
                return _HEAVY[key]
            # Binary arrays straight into numpy, sorted once by the primary key's order
            # (array_agg(... ORDER BY) would sort each array apart).
            cursor.execute(
                "SELECT array_agg(feature), array_agg(df::bigint) FROM"
                f" (SELECT feature, df FROM {DF_TABLE} ORDER BY feature) d",
                binary=True,
            )
            row = cursor.fetchone()
            assert row is not None  # an aggregate's one row
            features, dfs = (_array(column) for column in row)
        if len(features) > 1 and not (features[1:] > features[:-1]).all():
            order = np.argsort(features)  # an aggregate's input order is not promised
            features, dfs = features[order], dfs[order]
        spacing = max(_HEAVY_CHECK_SECONDS, _HEAVY_READ_SPACING * (time.monotonic() - now))
        read = HeavyFeatures(generation, features, dfs, now, spacing)
        _HEAVY[key] = read if cached is None else read.unstored_from(cached, HEAVY_FLOOR)
        return _HEAVY[key]

    def _saw_generation(self, generation: int, asked: float) -> None:
        """A lookup (sent at `asked`) saw the df table's generation: when it is the one this
        process's list was read at, the list is current and `heavy_features` need not look at
        the generation itself for another `spacing` (a round trip of its own, which costs most
        after a check's computing has left the server idle). A moved generation is left for
        `heavy_features` to find when it is due."""
        key = self._heavy_key()
        cached = _HEAVY.get(key)
        if cached is not None and cached.generation == generation and asked > cached.checked:
            _HEAVY[key] = replace(cached, checked=asked)

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
        """Indexed documents of this model version, all users (whose share is an unscoped
        lookup's max_df)."""
        with connections[self.using].cursor() as cursor:
            # Kept equal to count(*) of the indexed documents by triggers (migration 0008), so
            # a check does not count the rows.
            cursor.execute(
                f"SELECT coalesce(sum(n), 0) FROM {COUNT_TABLE} WHERE model_version = %s",
                [self.model_version],
            )
            return int(cursor.fetchone()[0])

    def spans(
        self, wanted: Mapping[int, Collection[int]]
    ) -> Mapping[int, Mapping[int, tuple[int, int]]]:
        """The spans of every candidate source in one query: the documents' span arrays
        (not a query per source: a fully copied 10,000-character document has ~80)."""
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
            return SCOPE_DOCUMENTS, {
                "scope": Int8Array(self._requested_scope),
                "crowded": HEAVY_FLOOR,
            }
        if self._collections is None:
            return "", {}
        return SCOPE_COLLECTIONS, {"collections": self._collections, "crowded": HEAVY_FLOOR}

    def _copy_postings(self, items: list[tuple[int, AnalysisLike]]) -> int:
        """COPY the documents' postings; returns how many."""
        columns = posting_columns(items)
        with connections[self.using].cursor() as cursor:
            model = self._model_id(cursor)
            with cursor.copy(
                f"COPY {POSTING_TABLE} {COPY_COLUMNS} FROM STDIN (FORMAT BINARY)"
            ) as copy:
                # Written in three parts: joined, a large document's rows were copied once more.
                copy.write(COPY_SIGNATURE)
                copy.write(copy_rows(columns, model))
                copy.write(COPY_TRAILER)
        return len(columns.features)

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
    repeated inside one document counts once)."""
    values, counts = _counted(found.features, max_df)
    return _common(found, values[counts > max_df], max_df)


def _document_counts(found: Postings, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(features, in how many distinct documents of `found` each occurs) for `features`."""
    mask = np.isin(found.features, features)
    kept, documents = found.features[mask], found.refs[mask] >> 32  # detection.pack_refs
    order = np.lexsort((documents, kept))  # by feature, then document (np.unique with axis=1
    kept, documents = kept[order], documents[order]  # sorted structured rows: ~50x slower)
    first = np.ones(len(kept), dtype=bool)
    first[1:] = (kept[1:] != kept[:-1]) | (documents[1:] != documents[:-1])
    counted, dfs = np.unique(kept[first], return_counts=True)
    return counted, dfs.astype(np.int64)


def _runs(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first and last id of each run of consecutive ids in `ids` (sorted, distinct)."""
    breaks = np.flatnonzero(np.diff(ids) != 1) + 1
    return ids[np.r_[0, breaks]], ids[np.r_[breaks - 1, len(ids) - 1]]


def _counted(features: np.ndarray, floor: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct `features` (sorted) and how often each occurs; empty when no feature can
    occur more than `floor` times (there are not that many).

    A lookup's postings come grouped by feature (each partition's btree yields its features in
    order, and a feature lives in one partition), so the runs are counted and only their ~1,000
    first values sorted, not the ~5,000 postings; any other order falls back to sorting
    everything."""
    if len(features) <= floor:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    starts = np.flatnonzero(np.concatenate(([True], features[1:] != features[:-1])))
    heads = features[starts]
    order = np.argsort(heads, kind="stable")
    values = heads[order]
    if (values[1:] == values[:-1]).any():  # a feature in two runs: not grouped
        return np.unique(features, return_counts=True)
    counts = np.diff(np.append(starts, len(features)))[order]
    return values, counts


def _common(found: Postings, candidates: np.ndarray, max_df: int) -> np.ndarray:
    """Those of `candidates` (features with more than `max_df` postings in `found`) that are
    in more than `max_df` distinct documents of it."""
    if not len(candidates):
        return candidates
    features, dfs = _document_counts(found, candidates)
    return features[dfs > max_df]


def _array(value: np.ndarray | None) -> np.ndarray:
    return np.empty(0, np.int64) if value is None else value


def _without(found: Postings, features: np.ndarray) -> Postings:
    if not len(features):
        return found
    keep = ~np.isin(found.features, features)
    return Postings(found.features[keep], found.refs[keep])
