"""Deleting documents removes their postings and decrements document frequencies, whatever
deletes them (a service, the admin, a cascade from a collection or a user, raw SQL).

A statement-level trigger with a transition table handles a bulk delete in one pass.
"""

from django.db import migrations

CREATE = [
    """
    CREATE FUNCTION documents_index_forget() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE
        emptied bigint[];
    BEGIN
        WITH removed AS (
            DELETE FROM documents_posting p USING gone g
            WHERE p.document_id = g.id
            RETURNING p.document_id, p.feature
        ), per_feature AS (
            SELECT feature, count(DISTINCT document_id) AS n FROM removed GROUP BY feature
        ), updated AS (
            UPDATE documents_feature_df f SET df = f.df - pf.n
            FROM per_feature pf WHERE f.feature = pf.feature
            RETURNING f.feature, f.df
        )
        SELECT array_agg(feature) INTO emptied FROM updated WHERE df <= 0;
        IF emptied IS NOT NULL THEN
            DELETE FROM documents_feature_df WHERE feature = ANY(emptied);
        END IF;
        RETURN NULL;
    END
    $$
    """,
    """
    CREATE TRIGGER documents_document_forget_postings
    AFTER DELETE ON documents_document
    REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION documents_index_forget()
    """,
]

DROP = [
    "DROP TRIGGER IF EXISTS documents_document_forget_postings ON documents_document",
    "DROP FUNCTION IF EXISTS documents_index_forget()",
]


class Migration(migrations.Migration):
    dependencies = [("documents", "0002_posting_index")]

    operations = [migrations.RunSQL(sql=tuple(CREATE), reverse_sql=tuple(DROP))]
