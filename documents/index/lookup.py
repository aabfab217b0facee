"""The lookup statement of `PostgresSentenceIndex.postings`: one round trip per query document.

A 10,000-character query has about 1,000 features and gets up to several thousand postings
back; this module keeps that one cheap statement:

- Routing in the client (`documents.index.partition`): each hash partition gets its own feature
  list as a parameter and probes its covering btree with only those features. Routing inside
  the statement (`satisfies_hash_partition` over every feature for every partition) costs a
  call per feature and partition; one array over the partitioned parent probes every btree
  with every feature (8×).
- Feature lists travel as binary `bigint[]` built by numpy (`Int8Array`), not as Python lists
  that psycopg dumps element by element.
- Document frequency: nothing is counted at ingest. Features known to be HEAVY (in more than
  `HEAVY_FLOOR` documents when a lookup last counted them: the table `DF_TABLE`, listed per
  process in `HeavyFeatures`) whose listed df exceeds the lookup's `guard` are checked in the
  table once (`kept`): left out if their recorded df still exceeds it, fetched if it dropped
  (removals) or the row is gone. Every other feature is fetched, and the caller counts its
  documents in what came back (`PostgresSentenceIndex.postings`). A recorded df is a lower
  bound of the true one (adds only raise the true df; removals lower both), so leaving a
  feature out is always right, and a stale process list only costs fetching more. One probe
  list for the whole statement (not one per partition) keeps PostgreSQL's estimate of the
  generic plan low: with per-partition probes and a large df table it planned every lookup
  anew.
- The postings come back as ONE row: two `bigint[]`, the features and the packed sentence
  references (migration 0011), decoded by numpy (`Int8ArrayLoader`); rows would cost a Python
  tuple per posting. (A C aggregate that sent them as one bytea saved no measurable time in
  the full check: docs/decisions/0001-postgres-extension.md.)
- Unscoped lookups aggregate the partitions' rows straight out (no materialised CTE); the
  statement text is the same for every query, so it is prepared once per connection
  (`execute_prepared`) and PostgreSQL plans it generically after five executions instead of
  parsing and planning eight index scans on every query.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from functools import cache

import numpy as np
import psycopg
from psycopg.adapt import Buffer, Dumper, Loader
from psycopg.pq import Format

from documents.index.partition import partition_of

POSTING_TABLE = "documents_posting"
DF_TABLE = "documents_feature_df"
MODEL_TABLE = "documents_index_model"  # feature model ids stored on the postings (0004)
POSTING_PARTITIONS = 8
HEAVY_GENERATION = "documents_heavy_generation"  # a sequence: bumped when DF_TABLE learns

_INT8_OID, _INT8_ARRAY_OID = 20, 1016
_ARRAY_HEADER = np.dtype([("ndim", ">i4"), ("flags", ">i4"), ("oid", ">u4"),
                          ("length", ">i4"), ("lower", ">i4")])  # fmt: skip
_ARRAY_ITEM = np.dtype([("length", ">i4"), ("value", ">i8")])


class Int8Array:
    """A numpy int64 array sent as a binary `bigint[]` parameter."""

    __slots__ = ("values",)

    def __init__(self, values: np.ndarray) -> None:
        self.values = values


class Int8ArrayDumper(Dumper):
    """PostgreSQL's binary array format (array_send): header, then (length, value) per item."""

    format = Format.BINARY
    oid = _INT8_ARRAY_OID

    def dump(self, obj: Int8Array) -> bytes:
        values = obj.values
        if not len(values):
            return np.array([(0, 0, _INT8_OID, 0, 0)], dtype=_ARRAY_HEADER).tobytes()[:12]
        header = np.array([(1, 0, _INT8_OID, len(values), 1)], dtype=_ARRAY_HEADER)
        items = np.empty(len(values), dtype=_ARRAY_ITEM)
        items["length"] = 8
        items["value"] = values
        return header.tobytes() + items.tobytes()


class Int8ArrayLoader(Loader):
    """A binary one-dimensional `bigint[]` without NULLs as a numpy int64 array (the lookup's
    result: no Python int per element)."""

    format = Format.BINARY

    def load(self, data: Buffer) -> np.ndarray:
        header = np.frombuffer(data, _ARRAY_HEADER, count=1)[0] if len(data) >= 20 else None
        if header is None or header["ndim"] == 0:
            return np.empty(0, np.int64)
        if header["ndim"] != 1 or header["flags"] != 0 or header["oid"] != _INT8_OID:
            raise ValueError("expected a one-dimensional bigint[] without NULLs")
        items = np.frombuffer(data, _ARRAY_ITEM, count=int(header["length"]), offset=20)
        return items["value"].astype(np.int64)


def lookup_cursor(connection: psycopg.Connection) -> psycopg.Cursor:
    """A cursor of the raw connection that sends `Int8Array` parameters and reads binary
    `bigint[]` results as numpy arrays."""
    cursor = psycopg.Cursor(connection)
    cursor.adapters.register_dumper(Int8Array, Int8ArrayDumper)
    cursor.adapters.register_loader(_INT8_ARRAY_OID, Int8ArrayLoader)
    return cursor


PREPARE_THRESHOLD = 5  # psycopg's default; `prepare=True` prepares the lookup at once anyway


def execute_prepared(
    cursor: psycopg.Cursor, sql: str, params: dict[str, object], *, lift: bool
) -> None:
    """Execute `sql` as a server-side prepared statement of the cursor's connection.

    Django turns psycopg's preparation off (`prepare_threshold = None`, for poolers such as
    PgBouncer in transaction mode) unless the database's OPTIONS set it, and `prepare=True`
    does nothing then. With `lift` the threshold is lifted for this one execution, so the
    lookup is prepared while no other statement of the connection is; psycopg still forgets
    its prepared statements (DEALLOCATE ALL) at every rollback of the connection."""
    connection = cursor.connection
    threshold = connection.prepare_threshold
    if lift and threshold is None:
        connection.prepare_threshold = PREPARE_THRESHOLD
    try:
        cursor.execute(sql, params, binary=True, prepare=True)
    finally:
        connection.prepare_threshold = threshold


@dataclass(frozen=True)
class HeavyFeatures:
    """The features of `DF_TABLE` as one process last read them (generation `generation`)."""

    generation: int
    features: np.ndarray  # sorted int64
    dfs: np.ndarray  # their recorded df, int64
    checked: float  # time.monotonic() when the generation was last seen unchanged
    spacing: float = 1.0  # seconds before the generation is looked at again

    def merged(self, features: np.ndarray, dfs: np.ndarray) -> HeavyFeatures:
        """This list with `features` (distinct, recorded as `dfs`) added or updated: found by
        binary search in the sorted list (`np.isin` would scan all listed features)."""
        order = np.argsort(features, kind="stable")
        features, dfs = features[order], dfs[order]
        at, listed = self._positions(features)
        updated = self.dfs.copy()
        updated[at[listed]] = dfs[listed]
        new = ~listed
        return replace(
            self,
            features=np.insert(self.features, at[new], features[new]),
            dfs=np.insert(updated, at[new], dfs[new]),
        )

    def unstored_from(self, earlier: HeavyFeatures, floor: int) -> HeavyFeatures:
        """This list (just read from the table) with the counts of `earlier` (this process's
        previous list) at most `floor` that this list lacks: lookups counted those and kept
        them in memory only (or the table dropped a row that removals brought to zero). A
        re-read dropped them, and each lookup meeting one of those features counted it
        again. Such a count is at most the floor and never lets a lookup skip a feature
        without the table's word; it only spares recounting (`_learn`)."""
        kept = earlier.dfs <= floor
        features, dfs = earlier.features[kept], earlier.dfs[kept]
        unlisted = ~self._positions(features)[1]
        return self.merged(features[unlisted], dfs[unlisted])

    def recorded(self, features: np.ndarray) -> np.ndarray:
        """The recorded df of each of `features` (0 for features not listed)."""
        at, listed = self._positions(features)
        found = np.zeros(len(features), np.int64)
        found[listed] = self.dfs[at[listed]]
        return found

    def _positions(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where each of `features` is, or would go, in the sorted list, and whether it is
        listed there."""
        at = np.searchsorted(self.features, features)
        listed = at < len(self.features)
        listed[listed] = self.features[at[listed]] == features[listed]
        return at, listed


def _branch(r: int, *, df: bool) -> str:
    """Partition r's SELECT: its covering btree probed with its features, the model filtered
    inside the index (the version check without a join)."""
    table = f"{POSTING_TABLE}_p{r}"
    wanted = f"%(p{r})s"
    if df:
        wanted = f"({wanted} || ARRAY(SELECT h FROM kept WHERE r = {r}))"
    return (
        f"SELECT feature, ref FROM {table}"
        f" WHERE feature = ANY({wanted}) AND model = (SELECT id FROM model)"
    )


# The listed features above the guard (%(h)s, their partitions %(hr)s) whose recorded df no
# longer exceeds it: fetched after all.
_KEPT = (
    "kept AS MATERIALIZED (SELECT h, r FROM unnest(%(h)s, %(hr)s) AS u(h, r) WHERE NOT EXISTS"
    f" (SELECT 1 FROM {DF_TABLE} d WHERE d.feature = u.h AND d.df > %(guard)s))"
)


def _statement(*, df: bool, scope: str) -> str:
    return _composed(df, scope, _POSTINGS)


@cache  # a few texts per process, each the same for every query of its shape
def _composed(df: bool, scope: str, postings: str) -> str:
    ctes = [
        f"model AS MATERIALIZED (SELECT id FROM {MODEL_TABLE} WHERE model_version = %(version)s)"
    ]
    if df:
        ctes.append(_KEPT)
    branches = " UNION ALL ".join(_branch(r, df=df) for r in range(POSTING_PARTITIONS))
    if not scope:
        return f"WITH {', '.join(ctes)} SELECT {postings}, {GENERATION} FROM ({branches}) h"
    ctes += [f"hits AS MATERIALIZED ({branches})", _CROWDED]
    return f"WITH {', '.join(ctes)} {scope.format(postings=postings)}"


# The df table's generation as the lookup saw it: every lookup's last column, so that a
# process learns whether its heavy list is current without a round trip of its own
# (`PostgresSentenceIndex.heavy_features`).
GENERATION = f"(SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM {HEAVY_GENERATION})"
# The postings of a lookup, as one row: NULL(s) when nothing was found.
_POSTINGS = "array_agg(h.feature), array_agg(h.ref)"
_DOCUMENT = "(h.ref >> 32)"  # the document of a reference (detection.pack_refs)
# A scoped lookup also returns the features with more than %(crowded)s postings before the scope
# was applied (all documents of the model) and their posting counts: the ones worth counting
# for DF_TABLE (the `crowded` CTE of `_statement`). `{postings}`: `_POSTINGS`.
_SCOPED = (
    "SELECT {postings}, (SELECT array_agg(feature) FROM crowded),"
    f" (SELECT array_agg(n) FROM crowded), {GENERATION} FROM hits h WHERE"
)
_CROWDED = (
    "crowded AS MATERIALIZED (SELECT feature, count(*) AS n FROM hits"
    " GROUP BY feature HAVING count(*) > %(crowded)s)"
)
SCOPE_DOCUMENTS = f"{_SCOPED} {_DOCUMENT} IN (SELECT unnest(%(scope)s))"
# Collections are checked on the documents found, so scoping to a large archive costs no more
# than the primary-key probes of those documents.
SCOPE_COLLECTIONS = (
    ", found AS MATERIALIZED (SELECT id FROM documents_document"
    f" WHERE id = ANY(ARRAY(SELECT DISTINCT {_DOCUMENT} FROM hits h))"
    " AND collection_id = ANY(%(collections)s::bigint[]))"
    f" {_SCOPED} {_DOCUMENT} IN (SELECT id FROM found)"
)


def lookup_statement(
    features: Collection[int] | np.ndarray,
    *,
    version: str,
    guard: int | None,
    heavy: HeavyFeatures | None,
    scope: str = "",
) -> tuple[str, dict[str, object]]:
    """The SQL and parameters of one lookup; `scope` is "" or one of the SCOPE_* selects
    (their parameters are the caller's). Features listed in `heavy` above `guard` are
    checked in the df table and left out if their recorded df still exceeds it (none when
    `guard` is None); the statement has no df probe at all when no feature is listed above
    the guard. The row's last column is the df table's generation (`GENERATION`)."""
    if isinstance(features, np.ndarray):
        wanted = np.sort(features.astype(np.int64, copy=False))
    else:
        wanted = np.sort(np.fromiter(features, np.int64, len(features)))
    wanted = wanted[np.concatenate(([True], wanted[1:] != wanted[:-1]))]  # unique, cheaply
    partitions = partition_of(wanted, POSTING_PARTITIONS)
    params: dict[str, object] = {"version": version}
    listed_above = np.zeros(len(wanted), bool)
    if guard is not None and heavy is not None:
        listed_above = heavy.recorded(wanted) > guard
    _route(params, "p", wanted[~listed_above], partitions[~listed_above])
    checked = bool(listed_above.any())
    if checked:
        params["h"] = Int8Array(wanted[listed_above])
        params["hr"] = Int8Array(partitions[listed_above])
        params["guard"] = guard
    return _statement(df=checked, scope=scope), params


def _route(
    params: dict[str, object], prefix: str, features: np.ndarray, partitions: np.ndarray
) -> None:
    """One parameter per partition: its features (sorted, as `wanted` is)."""
    order = np.argsort(partitions, kind="stable")
    bounds = np.searchsorted(partitions[order], np.arange(POSTING_PARTITIONS + 1))
    routed = features[order]
    for r in range(POSTING_PARTITIONS):
        params[f"{prefix}{r}"] = Int8Array(routed[bounds[r] : bounds[r + 1]])
