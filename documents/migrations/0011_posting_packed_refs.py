"""Postings with one packed sentence reference instead of three columns (docs/benchmarks.md).

`documents_posting(feature, model, ref)`, `ref = document_id << 32 | sentence << 12 | size`
(`detection.pack_refs`; the order of refs is the order of (document, sentence)):
- the covering btree `(feature) INCLUDE (model, ref)` has 20 % smaller tuples, and a lookup
  sends two columns per posting instead of four (aggregated into two arrays, see
  `documents.pg_lookup`);
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

# The delete trigger's function (0003, 0010) with the document's ref range; rows are still
# deleted per document of the transition table `gone`, locks still taken in feature order.
_FORGET = """
CREATE OR REPLACE FUNCTION documents_index_forget() RETURNS trigger
LANGUAGE plpgsql SET jit = off AS $$
DECLARE
    features bigint[];
    counts integer[];
BEGIN
    WITH removed AS (
        DELETE FROM documents_posting p USING gone g
        WHERE %(match)s
        RETURNING %(document)s AS document_id, p.feature
    )
    SELECT array_agg(feature ORDER BY feature), array_agg(n ORDER BY feature)
    INTO features, counts
    FROM (SELECT feature, count(DISTINCT document_id)::integer AS n FROM removed
          GROUP BY feature) AS per_feature;
    IF features IS NULL THEN
        RETURN NULL;
    END IF;
    PERFORM 1 FROM documents_feature_df WHERE feature = ANY(features)
    ORDER BY feature FOR UPDATE;
    UPDATE documents_feature_df f SET df = f.df - t.n
    FROM unnest(features, counts) AS t(feature, n)
    WHERE f.feature = t.feature;
    DELETE FROM documents_feature_df WHERE feature = ANY(features) AND df <= 0;
    RETURN NULL;
END
$$
"""
# A document's refs: the equality lets the planner hash-join many deleted documents (a range
# alone made it a nested loop of sequential scans: 323 s for 2,000 documents), the range lets
# BRIN find a few documents' blocks, and no shift overflows (bigint shifts wrap silently: the
# range of an id beyond 2^31 - 1 would be some other document's).
IN_RANGE = (
    "(p.ref >> 32) = g.id AND g.id BETWEEN 0 AND 2147483647"
    " AND p.ref BETWEEN g.id << 32 AND (g.id << 32) | 4294967295"
)
FORGET_PACKED = _FORGET % {"match": IN_RANGE, "document": "p.ref >> 32"}
# Back to 0010's function (document_id column, JIT as configured).
FORGET_COLUMNS = (_FORGET % {"match": "p.document_id = g.id", "document": "p.document_id"}).replace(
    " SET jit = off", ""
)


class Migration(migrations.Migration):
    dependencies = [("documents", "0010_forget_in_feature_order")]

    operations = [
        migrations.RunSQL(sql=PACK, reverse_sql=UNPACK),
        migrations.RunSQL(sql=FORGET_PACKED, reverse_sql=FORGET_COLUMNS),
    ]
