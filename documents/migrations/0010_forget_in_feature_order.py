"""The delete trigger of migration 0003 takes the df rows' locks in feature order, as
`add_many`'s sorted upsert and `remove_many` do, so a document deleted while another worker
indexes documents sharing several of its features cannot deadlock with it (the UPDATE of 0003
locked the rows in whatever order its join produced them).
"""

import importlib

from django.db import migrations

ORDERED = """
CREATE OR REPLACE FUNCTION documents_index_forget() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    features bigint[];
    counts integer[];
BEGIN
    WITH removed AS (
        DELETE FROM documents_posting p USING gone g
        WHERE p.document_id = g.id
        RETURNING p.document_id, p.feature
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

# Back to the function as migration 0003 created it.
_PREVIOUS = importlib.import_module("documents.migrations.0003_forget_deleted_documents")
UNORDERED = _PREVIOUS.CREATE[0].replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)


class Migration(migrations.Migration):
    dependencies = [("documents", "0009_posting_document_brin_multi")]

    operations = [migrations.RunSQL(sql=ORDERED, reverse_sql=UNORDERED)]
