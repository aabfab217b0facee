"""What the database alone costs to ingest the benchmark's real documents, per design variant.

A measurement, not a test (docs/decisions/0003 and 0004): the first 1,500 real
documents are analysed once, then their batches of 100 are replayed into a scratch database
with the real schema (`copydetect_dbfloor`, migrated, dropped at the end), timing the postings
COPY and the document-frequency upkeep apart, for the schema as shipped and for variants of it.
The PostgreSQL backend's CPU time is read from /proc when the server runs on this machine.

    DJANGO_SETTINGS_MODULE=config.settings.dev .venv/bin/python -m benchmarks.ingest_db_floor
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

import django
import numpy as np

django.setup()

from django.db import connections, transaction  # noqa: E402

from benchmarks.corpus import default_data_dir, read_prose  # noqa: E402
from benchmarks.database import bench_database_drop, bench_database_open  # noqa: E402
from detection import analyze  # noqa: E402
from documents.index.copy import (  # noqa: E402
    COPY_SIGNATURE,
    COPY_TRAILER,
    AnalysisLike,
    PostingColumns,
    df_increments,
    posting_columns,
)
from documents.index.lookup import Int8Array, lookup_cursor  # noqa: E402
from documents.index.store import (  # noqa: E402
    DF_TABLE,
    POSTING_PARTITIONS,
    POSTING_TABLE,
    PostgresSentenceIndex,  # noqa: E402
)

DATABASE = "copydetect_dbfloor"
_DF_ROW = np.dtype([("fields", ">i2"), ("feature_len", ">i4"), ("feature", ">i8"),
                    ("df_len", ">i4"), ("df", ">i4")])  # fmt: skip
Batch = tuple[list[tuple[int, AnalysisLike]], PostingColumns]
# The partial index the exact df table had (migrations 0005-0018), for its variants.
_HEAVY_INDEX = "CREATE INDEX documents_feature_df_heavy ON documents_feature_df (df) WHERE df > 50"


def _backend_cpu(cursor) -> float | None:  # type: ignore[no-untyped-def]
    cursor.execute("SELECT pg_backend_pid()")
    try:
        with open(f"/proc/{cursor.fetchone()[0]}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None  # the server runs elsewhere
    return (int(fields[11]) + int(fields[12])) / 100


def _no_df(index: PostgresSentenceIndex, columns: PostingColumns) -> None:
    """Shipped since migration 0019: no df at ingest (lookups record the heavy features)."""


def _df_upsert(index: PostgresSentenceIndex, columns: PostingColumns) -> None:
    """Shipped until migration 0019: one sorted INSERT ... ON CONFLICT of the exact df
    increments (the table as it was: a row per feature, with the partial index of 0005)."""
    features, counts = df_increments(columns)
    if not len(features):
        return
    with lookup_cursor(connections[index.using].connection) as cursor:
        cursor.execute(
            f"INSERT INTO {DF_TABLE} (feature, df)"
            " SELECT * FROM unnest(%s::bigint[], %s::bigint[]::int[]) ORDER BY 1"
            f" ON CONFLICT (feature) DO UPDATE SET df = {DF_TABLE}.df + EXCLUDED.df",
            [Int8Array(features), Int8Array(counts.astype(np.int64))],
        )


def _df_update_then_copy(index: PostgresSentenceIndex, columns: PostingColumns) -> None:
    """Known features updated (nested loop), new ones COPYed."""
    features, counts = df_increments(columns)
    connection = connections[index.using]
    with lookup_cursor(connection.connection) as cursor:
        cursor.execute("SET LOCAL enable_hashjoin = off")
        cursor.execute("SET LOCAL enable_mergejoin = off")
        cursor.execute(
            f"UPDATE {DF_TABLE} d SET df = d.df + b.n"
            " FROM unnest(%s::bigint[], %s::bigint[]::int[]) AS b(f, n)"
            " WHERE d.feature = b.f RETURNING d.feature",
            [Int8Array(features), Int8Array(counts.astype(np.int64))],
        )
        known = np.array([row[0] for row in cursor.fetchall()], dtype=np.int64)
        new = ~np.isin(features, known)
        rows = np.empty(int(new.sum()), dtype=_DF_ROW)
        rows["fields"], rows["feature_len"], rows["df_len"] = 2, 8, 4
        rows["feature"], rows["df"] = features[new], counts[new]
        with cursor.copy(f"COPY {DF_TABLE} (feature, df) FROM STDIN (FORMAT BINARY)") as copy:
            copy.write(COPY_SIGNATURE + rows.tobytes() + COPY_TRAILER)


def _df_only_shared(index: PostgresSentenceIndex, columns: PostingColumns) -> None:
    """df rows only for features in two or more documents: a probe of the postings per
    feature (run before the batch's own postings are COPYed)."""
    features, counts = df_increments(columns)
    with lookup_cursor(connections[index.using].connection) as cursor:
        cursor.execute(
            "WITH b AS (SELECT * FROM unnest(%s::bigint[], %s::bigint[]::int[]) AS b(f, n)),"
            f" e AS (SELECT f, n, EXISTS (SELECT 1 FROM {POSTING_TABLE} p WHERE p.feature = b.f)"
            " AS old FROM b)"
            f" INSERT INTO {DF_TABLE} (feature, df) SELECT f, n + old::int FROM e"
            " WHERE old OR n >= 2 ORDER BY 1"
            f" ON CONFLICT (feature) DO UPDATE SET df = {DF_TABLE}.df + EXCLUDED.df - 1",
            [Int8Array(features), Int8Array(counts.astype(np.int64))],
        )


def _replay(
    index: PostgresSentenceIndex, batches: list[Batch], df: Callable, *, df_first: bool = False
) -> dict[str, float | None]:
    connection = connections[index.using]
    with connection.cursor() as cursor:
        cpu = _backend_cpu(cursor)
    copy_seconds = df_seconds = 0.0
    begun = time.perf_counter()
    for items, columns in batches:
        with transaction.atomic(using=index.using):
            if df_first:
                started = time.perf_counter()
                df(index, columns)
                df_seconds += time.perf_counter() - started
            started = time.perf_counter()
            index._copy_postings(items)
            copy_seconds += time.perf_counter() - started
            if not df_first:
                started = time.perf_counter()
                df(index, columns)
                df_seconds += time.perf_counter() - started
    wall = time.perf_counter() - begun
    with connection.cursor() as cursor:
        after = _backend_cpu(cursor)
    return {
        "copy_seconds": round(copy_seconds, 3),
        "df_seconds": round(df_seconds, 3),
        "wall_seconds": round(wall, 3),
        "backend_cpu_seconds": None if cpu is None or after is None else round(after - cpu, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=1500)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--data-dir", type=Path, default=default_data_dir())
    options = parser.parse_args()
    texts = [text for _, text in read_prose(options.data_dir)[: options.documents]]
    analyses = [analyze(text) for text in texts]
    batches: list[Batch] = []
    for at in range(0, len(analyses), options.batch):
        items = [(i + 1, analyses[i]) for i in range(at, min(at + options.batch, len(analyses)))]
        batches.append((items, posting_columns(items)))  # type: ignore[arg-type]
    figures: dict[str, object] = {
        "documents": len(analyses),
        "postings": int(sum(len(c.features) for _, c in batches)),
        "df_increments": int(sum(len(df_increments(c)[0]) for _, c in batches)),
    }
    # Each variant in a freshly migrated database, changed by its statements.
    variants: list[tuple[str, Callable, bool, list[str]]] = [
        ("shipped", _no_df, False, []),
        ("exact_df_upsert", _df_upsert, False, [_HEAVY_INDEX]),
        ("df_update_then_copy", _df_update_then_copy, False, [_HEAVY_INDEX]),
        ("df_only_shared_features", _df_only_shared, True, [_HEAVY_INDEX]),
        ("without_brin", _no_df, False, ["DROP INDEX documents_posting_document"]),
        ("unlogged", _no_df, False,
         [*(f"ALTER TABLE {POSTING_TABLE}_p{r} SET UNLOGGED" for r in range(POSTING_PARTITIONS)),
          f"ALTER TABLE {DF_TABLE} SET UNLOGGED"]),
    ]  # fmt: skip
    try:
        for name, df, df_first, changes in variants:
            alias = bench_database_open(DATABASE)
            with connections[alias].cursor() as cursor:
                for statement in changes:
                    cursor.execute(statement)
            index = PostgresSentenceIndex(model_version=analyses[0].model_version, using=alias)
            figures[name] = _replay(index, batches, df, df_first=df_first)
            print(name, figures[name], flush=True)
    finally:
        connections.close_all()
        bench_database_drop(DATABASE)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
