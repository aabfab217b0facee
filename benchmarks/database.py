"""A separate benchmark database on the same PostgreSQL server (the dev data is never touched).

`bench_database_open` drops and recreates the database (default `copydetect_bench`), registers
it as the Django connection alias `bench` and runs the migrations there, so the benchmark
measures the real schema of `documents/migrations/`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.core.management import call_command
from django.db import connections

from detection import DocumentAnalysis
from documents.index.lookup import lookup_cursor

ALIAS = "bench"


def bench_database_open(name: str) -> str:
    """(Re)create database `name`, register it as alias `bench`, migrate; returns the alias."""
    if not name.replace("_", "").isalnum() or name == connections["default"].settings_dict["NAME"]:
        raise ValueError(f"refusing to use {name!r} as the benchmark database")
    connections.close_all()
    with connections["default"].cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        cursor.execute(f'CREATE DATABASE "{name}"')
    connections.databases[ALIAS] = {**connections.databases["default"], "NAME": name}
    call_command("migrate", database=ALIAS, verbosity=0, interactive=False)
    return ALIAS


def bench_database_drop(name: str) -> None:
    """Forget alias `bench` and drop database `name` (tests clean up after themselves)."""
    if ALIAS in connections.databases:
        connections[ALIAS].close()
        del connections.databases[ALIAS]
    with connections["default"].cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def bench_collection(alias: str) -> int:
    """The archive collection (and its owner's workspace) the benchmark documents belong to."""
    from django.contrib.auth import get_user_model

    from documents.models import Collection
    from workspaces.models import Workspace

    owner = get_user_model().objects.using(alias).create(username="bench")
    workspace = Workspace.objects.using(alias).create(name="bench", personal_of=owner)
    return (
        Collection.objects.using(alias)
        .create(owner=owner, workspace=workspace, name="bench", kind="archive")
        .id
    )


def documents_load(
    alias: str, collection_id: int, items: Sequence[tuple[int, str, DocumentAnalysis]]
) -> None:
    """Document rows (with their text and sentence spans), ids the given ones, written as the
    bulk import writes them (`documents.index.rows.rows_copy`: one COPY).

    Postings are NOT written here: that is `PostgresSentenceIndex.add_many`, the code under test.
    """
    from documents.index.rows import rows_copy
    from documents.models import Document
    from documents.services import analysis_fields

    rows_copy(
        [
            Document(
                id=document_id,
                collection_id=collection_id,
                filename=f"bench-{document_id}.txt",
                size=len(text.encode()),
                checksum="0" * 64,
                text=text,
                status=Document.Status.DONE,
                progress=100,
                **analysis_fields(analysis),
            )
            for document_id, text, analysis in items
        ],
        using=alias,
    )


def documents_delete(alias: str, ids: Sequence[int]) -> None:
    """Delete documents (the trigger of migration 0003 removes their postings and lowers the
    recorded df), then VACUUM so the next load starts from a clean table."""
    with connections[alias].cursor() as cursor:
        cursor.execute(
            "DELETE FROM documents_documentunits WHERE document_id = ANY(%s)", [list(ids)]
        )
        cursor.execute("DELETE FROM documents_document WHERE id = ANY(%s)", [list(ids)])
        cursor.execute("VACUUM (ANALYZE) documents_posting")
        cursor.execute("VACUUM (ANALYZE) documents_feature_df")
        cursor.execute("VACUUM (ANALYZE) documents_document")


def checkpoint(alias: str) -> bool:
    """CHECKPOINT (PostgreSQL 15: a superuser or a member of pg_checkpoint, which
    scripts/services.sh grants the app's role); False when the role may not."""
    from django.db import DatabaseError, transaction

    try:
        with transaction.atomic(using=alias), connections[alias].cursor() as cursor:
            cursor.execute("CHECKPOINT")
    except DatabaseError:
        return False
    return True


def settle(alias: str) -> None:
    """Leave autovacuum nothing to do before timings: the document rows vacuumed and
    analysed (the posting and df tables are, by `PostgresSentenceIndex.vacuum`), and the
    posting BRIN ranges that loads asked autovacuum to summarise summarised now. Otherwise
    autovacuum workers do that work during the next timings, on the same two cores."""
    with connections[alias].cursor() as cursor:
        cursor.execute("VACUUM (ANALYZE) documents_document")
        cursor.execute(
            "SELECT brin_summarize_new_values(i.indexrelid) FROM pg_index i"
            " JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam"
            " WHERE a.amname = 'brin' AND i.indrelid IN"
            " (SELECT relid FROM pg_partition_tree('documents_posting'::regclass) WHERE isleaf)"
        )


def autovacuum_runs(alias: str) -> dict[str, int]:
    """Autovacuum and autoanalyze runs finished so far, per table of this database (the
    difference over a timing says whether autovacuum worked beside it)."""
    with connections[alias].cursor() as cursor:
        cursor.execute(
            "SELECT relname, autovacuum_count + autoanalyze_count FROM pg_stat_user_tables"
        )
        return {name: int(runs) for name, runs in cursor.fetchall()}


def sequences_reset(alias: str) -> None:
    """Move the id sequence past the explicit ids the loader used."""
    with connections[alias].cursor() as cursor:
        cursor.execute(
            "SELECT setval(pg_get_serial_sequence('documents_document', 'id'),"
            " (SELECT coalesce(max(id), 1) FROM documents_document))"
        )


def relation_bytes(alias: str, parent: str) -> int:
    """pg_total_relation_size (heap + indexes + TOAST) of `parent` and all its partitions."""
    with connections[alias].cursor() as cursor:
        # pg_partition_tree is empty for a plain table: then the table's own size.
        cursor.execute(
            "SELECT coalesce((SELECT sum(pg_total_relation_size(relid))"
            " FROM pg_partition_tree(%s::regclass) WHERE isleaf),"
            " pg_total_relation_size(%s::regclass))",
            [parent, parent],
        )
        return int(cursor.fetchone()[0])


def scalar(alias: str, sql: str, params: Sequence[Any] = ()) -> object:
    with connections[alias].cursor() as cursor:
        cursor.execute(sql, list(params))
        return cursor.fetchone()[0]


def explain(alias: str, sql: str, params: Mapping[str, object]) -> list[str]:
    """EXPLAIN (ANALYZE, BUFFERS) lines of a query, to show which plan lookups really get
    (bound on the server, as `PostgresSentenceIndex.postings` runs it)."""
    connection = connections[alias]
    connection.ensure_connection()
    with lookup_cursor(connection.connection) as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + sql, params)
        return [_shorten(row[0]) for row in cursor.fetchall()]


def _shorten(line: str, keep: int = 60) -> str:
    """A plan line with long array literals cut (the query's features are not news)."""
    start = line.find("'{")
    end = line.find("}'", start)
    if start < 0 or end - start <= keep:
        return line
    return line[: start + keep] + "...}'" + _shorten(line[end + 2 :], keep)
