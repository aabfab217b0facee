"""Postings with one packed sentence reference instead of three columns (docs/decisions/0002).

`documents_posting(feature, model, ref)`, `ref = document_id << 32 | sentence << 12 | size`
(`detection.pack_refs`; the order of refs is the order of (document, sentence)):
- the covering btree `(feature) INCLUDE (model, ref)` has 20 % smaller tuples, and a lookup
  sends two columns per posting instead of four (aggregated into two arrays, see
  `documents.index.lookup`);
- COPY parses three fields per row instead of five (~20 % less server time per posting);
- a document's postings are the refs `id << 32 .. (id << 32) | (2^32 - 1)`: the BRIN index moves
  to `ref` and removal (the delete trigger of 0003/0010, `remove_many`) asks for that range.

After migrating a large index, run `PostgresSentenceIndex.vacuum()` (or wait for autovacuum):
the rebuilt table has no visibility map yet, so lookups visit the heap until then.

The delete trigger's function runs with JIT off: the planner cannot see the range of a
document of the transition table, guesses a large share of the postings, and compiled the
statement (~300 ms) to delete ~200 rows.

The table is rebuilt (new table, rows copied in feature order, old one dropped): dropping
columns in place would leave them in every existing row.
"""

import importlib

from django.db import migrations

PARTITIONS = 8
_TABLE = "documents_posting"


def _partitioned(table: str, columns: str) -> list[str]:
    return [
        f"CREATE TABLE {table} ({columns}) PARTITION BY HASH (feature)",
        *[
            f"CREATE TABLE {table}_p{r} PARTITION OF {table}"
            f" FOR VALUES WITH (MODULUS {PARTITIONS}, REMAINDER {r})"
            for r in range(PARTITIONS)
        ],
    ]


def _swap(columns: str, select: str, lookup: str, brin: str) -> list[str]:
    """Rebuild the posting table with `columns`, filled by `select` from the old one. Writers
    wait (SHARE lock: lookups go on) so that no posting added or removed meanwhile is lost."""
    return [
        f"LOCK TABLE {_TABLE} IN SHARE MODE",
        *_partitioned(f"{_TABLE}_new", columns),
        f"INSERT INTO {_TABLE}_new {select} FROM {_TABLE} ORDER BY feature",
        f"DROP TABLE {_TABLE}",
        f"ALTER TABLE {_TABLE}_new RENAME TO {_TABLE}",
        *[f"ALTER TABLE {_TABLE}_new_p{r} RENAME TO {_TABLE}_p{r}" for r in range(PARTITIONS)],
        f"CREATE INDEX documents_posting_lookup ON {_TABLE} USING btree {lookup}",
        f"CREATE INDEX documents_posting_document ON {_TABLE} USING brin {brin}"
        " WITH (pages_per_range = 32, autosummarize = on)",
        *[
            f"ALTER TABLE {_TABLE}_p{r} SET (autovacuum_vacuum_insert_scale_factor = 0.02)"
            for r in range(PARTITIONS)
        ],
        f"ANALYZE {_TABLE}",
    ]


# Rows the reference fields cannot hold stop the migration (packing would corrupt them).
CHECK_FITS = f"""
DO $$ BEGIN
    IF EXISTS (SELECT 1 FROM {_TABLE} WHERE document_id NOT BETWEEN 0 AND 2147483647
               OR sentence NOT BETWEEN 0 AND 1048575) THEN
        RAISE EXCEPTION 'postings with a document id above 2^31 - 1 or a sentence number above'
            ' 2^20 - 1 cannot be packed; remove those documents first';
    END IF;
END $$
"""
PACK = [CHECK_FITS] + _swap(
    "feature bigint NOT NULL, model smallint NOT NULL,"
    " ref bigint NOT NULL CONSTRAINT documents_posting_ref_check CHECK (ref >= 0)",
    "SELECT feature, model,"
    " (document_id << 32) | (sentence::bigint << 12) | least(size, 4095)::bigint",
    "(feature) INCLUDE (model, ref)",
    "(ref int8_minmax_multi_ops(values_per_range = 16))",
)
UNPACK = _swap(
    "feature bigint NOT NULL, document_id bigint NOT NULL, sentence integer NOT NULL,"
    " size smallint NOT NULL, model smallint NOT NULL",
    "SELECT feature, ref >> 32, ((ref >> 12) & 1048575)::integer, (ref & 4095)::smallint, model",
    "(feature) INCLUDE (model, document_id, sentence, size)",
    "(document_id int8_minmax_multi_ops(values_per_range = 16))",
)

# A document's refs: the equality lets the planner hash-join many deleted documents (a range
# alone made it a nested loop of sequential scans: 323 s for 2,000 documents), the range lets
# BRIN find a few documents' blocks, and no shift overflows (bigint shifts wrap silently: the
# range of an id beyond 2^31 - 1 would be some other document's).
IN_RANGE = (
    "(p.ref >> 32) = g.id AND g.id BETWEEN 0 AND 2147483647"
    " AND p.ref BETWEEN g.id << 32 AND (g.id << 32) | 4294967295"
)

# The delete trigger's function of migration 0010 with the document's ref range (rows still
# deleted per document of the transition table `gone`, locks still taken in feature order).
_PREVIOUS = importlib.import_module("documents.migrations.0010_forget_in_feature_order")
FORGET_COLUMNS = _PREVIOUS.ORDERED


def _edited(sql: str, *edits: tuple[str, str]) -> str:
    for old, new in edits:
        if sql.count(old) != 1:
            raise ValueError(f"expected {old!r} once in the function of migration 0010")
        sql = sql.replace(old, new)
    return sql


FORGET_PACKED = _edited(
    FORGET_COLUMNS,
    ("LANGUAGE plpgsql AS", "LANGUAGE plpgsql SET jit = off AS"),
    ("WHERE p.document_id = g.id", f"WHERE {IN_RANGE}"),
    ("RETURNING p.document_id, p.feature", "RETURNING p.ref >> 32 AS document_id, p.feature"),
)


class Migration(migrations.Migration):
    dependencies = [("documents", "0010_forget_in_feature_order")]

    operations = [
        migrations.RunSQL(sql=tuple(PACK), reverse_sql=tuple(UNPACK)),
        migrations.RunSQL(sql=FORGET_PACKED, reverse_sql=FORGET_COLUMNS),
    ]
