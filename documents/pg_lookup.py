"""The lookup statement of `PostgresSentenceIndex.postings`: one round trip per query document.

What a 10,000-character query costs (~1,000 features, up to ~8,000 postings back; measured on
a 22.7M-posting archive, docs/benchmarks.md) and how this module keeps it down:

- Routing in the client (`documents.pg_partition`): each hash partition gets its own feature
  list as a parameter and probes its covering btree with only those features. Routing inside
  the statement (`satisfies_hash_partition` over every feature for every partition) cost
  ~0.7 ms; one array over the partitioned parent probes every btree with every feature (8×).
- Feature lists travel as binary `bigint[]` built by numpy (`Int8Array`): psycopg dumping a
  Python list of 1,000 ints took ~1 ms per list.
- Document frequency: only the query's HEAVY features (the per-process list of
  `HeavyFeatures`) are probed in the df table; the others skip it while the documents added
  since the list was read cannot have lifted them above max_df. That bound is checked INSIDE
  the statement, in its own snapshot (`fresh`), so the result is exact; when it fails, every
  feature is probed.
- The postings come back as ONE row of two `bigint[]` (features, packed sentence references,
  migration 0011) decoded by numpy (`Int8ArrayLoader`): ~5,000 rows of four columns cost ~3 ms
  to send and turn into Python tuples, the two arrays a fraction of that.
- Unscoped lookups aggregate the partitions' rows straight out (no materialised CTE); the
  statement text is the same for every query, so it is prepared once per connection.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np
import psycopg
from psycopg.adapt import Buffer, Dumper, Loader
from psycopg.pq import Format

from documents.pg_partition import partition_of

POSTING_TABLE = "documents_posting"
DF_TABLE = "documents_feature_df"
MODEL_TABLE = "documents_index_model"  # feature model ids stored on the postings (0004)
POSTING_PARTITIONS = 8
ADDS_TABLE = "documents_index_adds"
ADDS = f"(SELECT coalesce(sum(n), 0) FROM {ADDS_TABLE})"

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


@dataclass(frozen=True)
class HeavyFeatures:
    """Features whose df exceeded `floor` when `adds` documents had been added (one snapshot)."""

    floor: int
    adds: int
    features: np.ndarray  # sorted int64
    checked: float  # time.monotonic() when the counter was last seen within the bound

    def usable(self, max_df: int) -> bool:
        return self.floor < max_df

    def contains(self, features: np.ndarray) -> np.ndarray:
        return np.isin(features, self.features, assume_unique=True)


def _branch(r: int, *, df: bool) -> str:
    """Partition r's SELECT: its covering btree probed with its features, the model filtered
    inside the index (the version check without a join)."""
    table = f"{POSTING_TABLE}_p{r}"
    if not df:
        wanted = f"%(p{r})s"
    else:
        probe = f"SELECT feature FROM {DF_TABLE} WHERE df <= %(max_df)s AND feature = ANY"
        wanted = (
            f"(CASE WHEN (SELECT ok FROM fresh) THEN %(p{r})s ELSE ARRAY({probe}(%(p{r})s)) END"
            f" || ARRAY({probe}(%(h{r})s)))"
        )
    return (
        f"SELECT feature, ref FROM {table}"
        f" WHERE feature = ANY({wanted}) AND model = (SELECT id FROM model)"
    )


def _statement(*, df: bool, scope: str) -> str:
    ctes = [
        f"model AS MATERIALIZED (SELECT id FROM {MODEL_TABLE} WHERE model_version = %(version)s)"
    ]
    if df:
        ctes.append(f"fresh AS MATERIALIZED (SELECT {ADDS} <= %(valid_until)s AS ok)")
    branches = " UNION ALL ".join(_branch(r, df=df) for r in range(POSTING_PARTITIONS))
    if not scope:
        return f"WITH {', '.join(ctes)} {_AGGREGATE} ({branches}) h"
    return f"WITH {', '.join(ctes)}, hits AS MATERIALIZED ({branches}) {scope}"


_AGGREGATE = "SELECT array_agg(feature), array_agg(ref) FROM"  # NULLs when nothing was found
_DOCUMENT = "(h.ref >> 32)"  # the document of a reference (detection.pack_refs)
SCOPE_DOCUMENTS = f"{_AGGREGATE} hits h WHERE {_DOCUMENT} = ANY(%(scope)s)"
# Collections are checked on the documents found, so scoping to a large archive costs no more
# than the primary-key probes of those documents.
SCOPE_COLLECTIONS = (
    ", found AS MATERIALIZED (SELECT id FROM documents_document"
    f" WHERE id = ANY(ARRAY(SELECT DISTINCT {_DOCUMENT} FROM hits h))"
    " AND collection_id = ANY(%(collections)s::bigint[]))"
    f" {_AGGREGATE} hits h WHERE {_DOCUMENT} IN (SELECT id FROM found)"
)


def lookup_statement(
    features: Collection[int] | np.ndarray,
    *,
    version: str,
    max_df: int | None,
    heavy: HeavyFeatures | None,
    scope: str = "",
) -> tuple[str, dict[str, object]]:
    """The SQL and parameters of one lookup; `scope` is "" or one of the SCOPE_* selects
    (their parameters are the caller's)."""
    if isinstance(features, np.ndarray):
        wanted = np.sort(features.astype(np.int64, copy=False))
    else:
        wanted = np.sort(np.fromiter(features, np.int64, len(features)))
    wanted = wanted[np.concatenate(([True], wanted[1:] != wanted[:-1]))]  # unique, cheaply
    partitions = partition_of(wanted, POSTING_PARTITIONS)
    params: dict[str, object] = {"version": version}
    if max_df is None:
        _route(params, "p", wanted, partitions)
        return _statement(df=False, scope=scope), params
    light = np.ones(len(wanted), bool) if heavy is None else ~heavy.contains(wanted)
    _route(params, "p", wanted[light], partitions[light])
    _route(params, "h", wanted[~light], partitions[~light])
    params["max_df"] = max_df
    # Without a usable list every feature is probed (`fresh` is false: -1 < any count).
    params["valid_until"] = -1 if heavy is None else heavy.adds + max_df - heavy.floor
    return _statement(df=True, scope=scope), params


def _route(
    params: dict[str, object], prefix: str, features: np.ndarray, partitions: np.ndarray
) -> None:
    """One parameter per partition: its features (sorted, as `wanted` is)."""
    order = np.argsort(partitions, kind="stable")
    bounds = np.searchsorted(partitions[order], np.arange(POSTING_PARTITIONS + 1))
    routed = features[order]
    for r in range(POSTING_PARTITIONS):
        params[f"{prefix}{r}"] = Int8Array(routed[bounds[r] : bounds[r + 1]])
