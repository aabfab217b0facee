"""The number of indexed documents per feature model, kept by triggers instead of counted.

`PostgresSentenceIndex.document_count()` (the population max_df is a fraction of) ran
`count(*)` over the indexed documents on every check: ~11 ms at 100k documents, growing with
the archive. Statement-level triggers on `documents_document` (INSERT, UPDATE, DELETE, with
transition tables) now append each statement's change (+k / -k per model) to
`documents_index_documents`, whatever changes the rows (the index, the ORM, the admin, raw
SQL); the count is the sum. Append-only on purpose: an upserted shared counter row is locked
until commit, and taken in the middle of transactions that also lock df rows, two workers
deadlocked on it (removal vs. indexing, re-processing vs. first ingest). The rows are folded
together now and then by `PostgresSentenceIndex` (`compact_document_count`). TRUNCATE fires no
DELETE trigger: a TRUNCATE trigger empties the table.
"""

from django.db import migrations

CREATE = [
    # No commit may slip between the first count and the triggers.
    "LOCK TABLE documents_document IN SHARE ROW EXCLUSIVE MODE",
    """
    CREATE TABLE documents_index_documents (
        model_version text NOT NULL,
        n bigint NOT NULL
    )
    """,
    "CREATE INDEX documents_index_documents_model ON documents_index_documents (model_version)",
    """
    INSERT INTO documents_index_documents (model_version, n)
    SELECT model_version, count(*) FROM documents_document WHERE indexed
    GROUP BY model_version
    """,
    # One branch per operation: a trigger only has the transition tables of its event.
    """
    CREATE FUNCTION documents_index_count() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            INSERT INTO documents_index_documents (model_version, n)
            SELECT model_version, count(*) FROM new_rows WHERE indexed GROUP BY model_version;
        ELSIF TG_OP = 'DELETE' THEN
            INSERT INTO documents_index_documents (model_version, n)
            SELECT model_version, -count(*) FROM old_rows WHERE indexed GROUP BY model_version;
        ELSE
            INSERT INTO documents_index_documents (model_version, n)
            SELECT model_version, sum(delta) FROM (
                SELECT model_version, 1 AS delta FROM new_rows WHERE indexed
                UNION ALL
                SELECT model_version, -1 FROM old_rows WHERE indexed
            ) AS changes
            GROUP BY model_version HAVING sum(delta) <> 0;
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

    operations = [migrations.RunSQL(sql=tuple(CREATE), reverse_sql=tuple(DROP))]
