"""Document frequencies are no longer counted at ingest: `documents_feature_df` keeps the HEAVY
features only (df above 50, the `HEAVY_FLOOR` of `documents.index.store`), recorded by the
lookups that meet them; a sequence tells the processes when to re-read their list.

The exact upsert per distinct feature of every added batch cost the database more than the
COPY of the postings themselves (docs/decisions/0003), for a table whose rows mostly said "1".
The counter of added documents (migration 0005) bounded a cache of that exact table and goes
with it, as does the partial index of its heavy rows (every row is heavy now).
"""

from django.db import migrations

FORWARD = [
    "DELETE FROM documents_feature_df WHERE df <= 50",
    "DROP INDEX IF EXISTS documents_feature_df_heavy",
    "DROP TABLE IF EXISTS documents_index_adds",
    "CREATE SEQUENCE documents_heavy_generation",
]

# Back to exact frequencies of every feature, counted from the postings.
BACKWARD = [
    "DROP SEQUENCE IF EXISTS documents_heavy_generation",
    """
    CREATE TABLE documents_index_adds (
        slot smallint PRIMARY KEY,
        n bigint NOT NULL CHECK (n >= 0)
    )
    """,
    """
    INSERT INTO documents_feature_df (feature, df)
    SELECT feature, count(DISTINCT ref >> 32) FROM documents_posting GROUP BY feature
    ON CONFLICT (feature) DO UPDATE SET df = EXCLUDED.df
    """,
    "CREATE INDEX documents_feature_df_heavy ON documents_feature_df (df) WHERE df > 50",
]


class Migration(migrations.Migration):
    dependencies = [("documents", "0018_collection_all_archives")]

    operations = [migrations.RunSQL(sql=tuple(FORWARD), reverse_sql=tuple(BACKWARD))]
