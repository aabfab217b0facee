"""One SQL function removes documents from the index; the delete trigger and
`PostgresSentenceIndex.remove_many` both call it.

`documents_index_forget_documents(ids)` does what the trigger function of migration 0011 did
for the transition table `gone`: delete the documents' postings by their ref range (the
condition of 0011: an equality for hash joins over many documents, the range for BRIN, no
overflowing shift), then lower df with the rows locked in feature order, dropping rows that
reach 0. It runs without JIT (the planner cannot see a document's range and compiled the
statement, ~300 ms, to delete a few hundred rows). Before, `remove_many` repeated these four
statements from Python and had to switch JIT off and back on around them itself.
"""

import importlib

from django.db import migrations

_PACKED = importlib.import_module("documents.migrations.0011_posting_packed_refs")

FORGET_DOCUMENTS = f"""
CREATE FUNCTION documents_index_forget_documents(ids bigint[]) RETURNS void
LANGUAGE plpgsql SET jit = off AS $$
DECLARE
    features bigint[];
    counts integer[];
BEGIN
    WITH removed AS (
        DELETE FROM documents_posting p USING unnest(ids) AS g(id)
        WHERE {_PACKED.IN_RANGE}
        RETURNING p.ref >> 32 AS document_id, p.feature
    )
    SELECT array_agg(feature ORDER BY feature), array_agg(n ORDER BY feature)
    INTO features, counts
    FROM (SELECT feature, count(DISTINCT document_id)::integer AS n FROM removed
          GROUP BY feature) AS per_feature;
    IF features IS NULL THEN
        RETURN;
    END IF;
    PERFORM 1 FROM documents_feature_df WHERE feature = ANY(features)
    ORDER BY feature FOR UPDATE;
    UPDATE documents_feature_df f SET df = f.df - t.n
    FROM unnest(features, counts) AS t(feature, n)
    WHERE f.feature = t.feature;
    DELETE FROM documents_feature_df WHERE feature = ANY(features) AND df <= 0;
END
$$
"""

FORGET_TRIGGER = """
CREATE OR REPLACE FUNCTION documents_index_forget() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM documents_index_forget_documents(ARRAY(SELECT id FROM gone));
    RETURN NULL;
END
$$
"""


class Migration(migrations.Migration):
    dependencies = [("documents", "0011_posting_packed_refs")]

    operations = [
        migrations.RunSQL(
            sql=FORGET_DOCUMENTS,
            reverse_sql="DROP FUNCTION documents_index_forget_documents(bigint[])",
        ),
        migrations.RunSQL(sql=FORGET_TRIGGER, reverse_sql=_PACKED.FORGET_PACKED),
    ]
