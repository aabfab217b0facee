"""`documents_index_forget_documents` (migration 0012) fixed and made fast for many documents.

- A recorded df is a lower bound of the true one (migration 0019: lookups count a heavy
  feature and skip it afterwards, while documents holding it keep coming). Lowering it by
  the number of holders removed could go below zero, which the table's CHECK refuses: deleting
  a collection that held a heavy feature more often than its recorded count failed. The
  recorded df now goes to at most zero, and rows at zero are dropped as before (nothing known;
  the next lookup that meets the feature counts it again).
- Postings were deleted per document, each by its ref range, which BRIN (minmax-multi) narrows
  to the pages holding that document. Documents loaded together in one COPY (sorted by
  feature) share their pages, so each document's scan read the whole load's pages again: 300
  consecutive documents of the benchmark's 100k archive took 14.7 s. Runs of consecutive ids
  are now deleted by one range each: 0.11 s for the same 300. Scattered ids are runs of one;
  beyond MAX_RUNS runs the statement is the previous one (per-document scans, or one hash join
  over the whole table for thousands of documents, as PostgreSQL decides).
"""

import importlib

from django.db import migrations

_PACKED = importlib.import_module("documents.migrations.0011_posting_packed_refs")
_PREVIOUS = importlib.import_module("documents.migrations.0012_forget_documents_function")

# How many runs are deleted by their ranges at most; more (scattered ids) go the previous way,
# one join over the ids, for which PostgreSQL picks per-document scans or, for thousands of
# documents, one hash join over the whole table.
MAX_RUNS = 200

_REMOVED = """
    SELECT array_agg(feature ORDER BY feature), array_agg(n ORDER BY feature)
    INTO features, counts
    FROM (SELECT feature, count(DISTINCT document_id)::integer AS n FROM removed
          GROUP BY feature) AS per_feature;"""

FORGET_DOCUMENTS = f"""
CREATE OR REPLACE FUNCTION documents_index_forget_documents(ids bigint[]) RETURNS void
LANGUAGE plpgsql SET jit = off AS $$
DECLARE
    firsts bigint[];
    lasts bigint[];
    features bigint[];
    counts integer[];
BEGIN
    -- Runs of consecutive ids (they share id - rank); ids past the ref field cannot be
    -- indexed and would wrap the shifts below.
    SELECT array_agg(first ORDER BY first), array_agg(last ORDER BY first)
    INTO firsts, lasts
    FROM (SELECT min(id) AS first, max(id) AS last
          FROM (SELECT id, id - row_number() OVER (ORDER BY id) AS run
                FROM (SELECT DISTINCT id FROM unnest(ids) AS u(id)
                      WHERE id BETWEEN 0 AND 2147483647) AS wanted) AS ranked
          GROUP BY run) AS runs;
    IF firsts IS NULL THEN
        RETURN;
    END IF;
    IF cardinality(firsts) <= {MAX_RUNS} THEN
        WITH removed AS (
            DELETE FROM documents_posting p USING unnest(firsts, lasts) AS r(first, last)
            WHERE p.ref BETWEEN r.first << 32 AND (r.last << 32) | 4294967295
            RETURNING p.ref >> 32 AS document_id, p.feature
        ){_REMOVED}
    ELSE
        WITH removed AS (
            DELETE FROM documents_posting p USING unnest(ids) AS g(id)
            WHERE {_PACKED.IN_RANGE}
            RETURNING p.ref >> 32 AS document_id, p.feature
        ){_REMOVED}
    END IF;
    IF features IS NULL THEN
        RETURN;
    END IF;
    PERFORM 1 FROM documents_feature_df WHERE feature = ANY(features)
    ORDER BY feature FOR UPDATE;
    -- a lower bound stays one: the true df lost as many holders, and is never below zero
    UPDATE documents_feature_df f SET df = greatest(f.df - t.n, 0)
    FROM unnest(features, counts) AS t(feature, n)
    WHERE f.feature = t.feature;
    DELETE FROM documents_feature_df WHERE feature = ANY(features) AND df <= 0;
END
$$
"""

PREVIOUS = _PREVIOUS.FORGET_DOCUMENTS.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)


class Migration(migrations.Migration):
    dependencies = [("documents", "0019_heavy_features_only")]

    operations = [migrations.RunSQL(sql=FORGET_DOCUMENTS, reverse_sql=PREVIOUS)]
