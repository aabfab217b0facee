"""The number of indexed documents per feature model, kept by triggers instead of counted.

`PostgresSentenceIndex.document_count()` (the population max_df is a fraction of) ran
`count(*)` over the indexed documents on every check: ~11 ms at 100k documents, growing with
the archive. Statement-level triggers on `documents_document` (INSERT, UPDATE, DELETE, with
transition tables) now keep `documents_index_documents` equal to that count whatever changes
the rows (the index, the ORM, the admin, raw SQL); the count is spread over `SLOTS` rows per
model (slot = backend pid mod SLOTS) so concurrent writers rarely wait on one row, and a
slot may go negative while the sum stays exact.
"""

from django.db import migrations

SLOTS = 8

CREATE = [
    """
    CREATE TABLE documents_index_documents (
        model_version text NOT NULL,
        slot smallint NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (model_version, slot)
    )
    """,
    """
    INSERT INTO documents_index_documents (model_version, slot, n)
    SELECT model_version, 0, count(*) FROM documents_document WHERE indexed
    GROUP BY model_version
    """,
    f"""
    CREATE FUNCTION documents_index_count() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            INSERT INTO documents_index_documents (model_version, slot, n)
            SELECT model_version, pg_backend_pid() % {SLOTS}, count(*) FROM new_rows
            WHERE indexed GROUP BY model_version
            ON CONFLICT (model_version, slot)
            DO UPDATE SET n = documents_index_documents.n + EXCLUDED.n;
        ELSIF TG_OP = 'DELETE' THEN
            INSERT INTO documents_index_documents (model_version, slot, n)
            SELECT model_version, pg_backend_pid() % {SLOTS}, -count(*) FROM old_rows
            WHERE indexed GROUP BY model_version
            ON CONFLICT (model_version, slot)
            DO UPDATE SET n = documents_index_documents.n + EXCLUDED.n;
        ELSE
            INSERT INTO documents_index_documents (model_version, slot, n)
            SELECT model_version, pg_backend_pid() % {SLOTS}, sum(delta) FROM (
                SELECT model_version, 1 AS delta FROM new_rows WHERE indexed
                UNION ALL
                SELECT model_version, -1 FROM old_rows WHERE indexed
            ) AS changes
            GROUP BY model_version HAVING sum(delta) <> 0
            ON CONFLICT (model_version, slot)
            DO UPDATE SET n = documents_index_documents.n + EXCLUDED.n;
        END IF;
        RETURN NULL;
    END
    $$
    """,
    """
    CREATE TRIGGER documents_document_count_inserted AFTER INSERT ON documents_document
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION documents_index_count()
    """,
    """
    CREATE TRIGGER documents_document_count_updated AFTER UPDATE ON documents_document
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION documents_index_count()
    """,
    """
    CREATE TRIGGER documents_document_count_deleted AFTER DELETE ON documents_document
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION documents_index_count()
    """,
    # TRUNCATE (`manage.py flush`, test teardown) fires no DELETE trigger.
    """
    CREATE FUNCTION documents_index_count_reset() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM documents_index_documents;
        RETURN NULL;
    END
    $$
    """,
    """
    CREATE TRIGGER documents_document_count_truncated AFTER TRUNCATE ON documents_document
    FOR EACH STATEMENT EXECUTE FUNCTION documents_index_count_reset()
    """,
]

DROP = [
    "DROP TRIGGER IF EXISTS documents_document_count_truncated ON documents_document",
    "DROP FUNCTION IF EXISTS documents_index_count_reset()",
    "DROP TRIGGER IF EXISTS documents_document_count_deleted ON documents_document",
    "DROP TRIGGER IF EXISTS documents_document_count_updated ON documents_document",
    "DROP TRIGGER IF EXISTS documents_document_count_inserted ON documents_document",
    "DROP FUNCTION IF EXISTS documents_index_count()",
    "DROP TABLE IF EXISTS documents_index_documents",
]


class Migration(migrations.Migration):
    dependencies = [("documents", "0007_sentence_spans_on_document")]

    operations = [migrations.RunSQL(sql=CREATE, reverse_sql=DROP)]
