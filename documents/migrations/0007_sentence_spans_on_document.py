"""Cheaper ingest (docs/decisions/0002 and 0004):

- A document's sentence spans become two integer arrays on its row instead of one
  `documents_sentence` row per sentence (~45 per document, each with two btree entries and a
  deferred foreign-key check at commit). Existing rows are copied over before the table goes.
- The posting table's `document_id` btree (for removals) becomes a BRIN index: postings are
  appended a document or a batch at a time, so block ranges cover narrow id ranges, and a BRIN
  costs next to nothing to maintain during COPY (the btree was ~30 % of a COPY's time).
  Removing a document reads the block ranges of its batch instead of its exact rows.
- Document texts are TOAST-compressed with lz4 instead of pglz (~3x less CPU per byte
  written), where the server supports it.
"""

import django.contrib.postgres.fields
from django.db import migrations, models

COPY_SPANS = """
UPDATE documents_document d
SET sentence_starts = s.starts, sentence_ends = s.ends
FROM (
    SELECT document_id, array_agg(start ORDER BY number) AS starts,
           array_agg("end" ORDER BY number) AS ends
    FROM documents_sentence GROUP BY document_id
) s
WHERE d.id = s.document_id
"""

RESTORE_SPANS = """
INSERT INTO documents_sentence (document_id, number, start, "end")
SELECT d.id, n - 1, d.sentence_starts[n], d.sentence_ends[n]
FROM documents_document d, generate_subscripts(d.sentence_starts, 1) n
"""

LZ4 = """
DO $$ BEGIN
    ALTER TABLE documents_document ALTER COLUMN text SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
    RAISE NOTICE 'lz4 not available on this server: document texts stay pglz-compressed';
END $$
"""

BRIN = [
    "DROP INDEX IF EXISTS documents_posting_document",
    "CREATE INDEX documents_posting_document ON documents_posting"
    " USING brin (document_id) WITH (pages_per_range = 32, autosummarize = on)",
]
BTREE = [
    "DROP INDEX IF EXISTS documents_posting_document",
    "CREATE INDEX documents_posting_document ON documents_posting USING btree (document_id)",
]


def _spans_field() -> django.contrib.postgres.fields.ArrayField:
    return django.contrib.postgres.fields.ArrayField(
        base_field=models.PositiveIntegerField(), blank=True, db_default=[], default=list
    )


class Migration(migrations.Migration):
    dependencies = [("documents", "0006_document_warnings_site")]

    operations = [
        migrations.AddField(model_name="document", name="sentence_ends", field=_spans_field()),
        migrations.AddField(model_name="document", name="sentence_starts", field=_spans_field()),
        migrations.RunSQL(sql=COPY_SPANS, reverse_sql=RESTORE_SPANS),
        migrations.DeleteModel(name="Sentence"),
        migrations.RunSQL(sql=tuple(BRIN), reverse_sql=tuple(BTREE)),
        migrations.RunSQL(
            sql=LZ4,
            reverse_sql="ALTER TABLE documents_document ALTER COLUMN text SET COMPRESSION pglz",
        ),
    ]
