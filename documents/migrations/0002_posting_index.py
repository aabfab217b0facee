"""The inverted index: a flat posting table hash-partitioned by feature, and feature_df.

Django cannot model partitioned tables, so they are created with raw SQL and accessed through
`documents.index.store.PostgresSentenceIndex`. Hash partitioning spreads a large index over
`PARTITIONS` tables of equal size (each with its own small btree), which keeps index builds,
VACUUM and ANALYZE per partition cheap as the archive grows.
"""

from django.db import migrations

PARTITIONS = 8

CREATE = [
    """
    CREATE TABLE documents_posting (
        feature bigint NOT NULL,
        document_id bigint NOT NULL,
        sentence integer NOT NULL,
        size smallint NOT NULL
    ) PARTITION BY HASH (feature)
    """,
    *[
        f"CREATE TABLE documents_posting_p{r} PARTITION OF documents_posting"
        f" FOR VALUES WITH (MODULUS {PARTITIONS}, REMAINDER {r})"
        for r in range(PARTITIONS)
    ],
    "CREATE INDEX documents_posting_feature ON documents_posting USING btree (feature)",
    "CREATE INDEX documents_posting_document ON documents_posting USING btree (document_id)",
    """
    CREATE TABLE documents_feature_df (
        feature bigint PRIMARY KEY,
        df integer NOT NULL CHECK (df >= 0)
    )
    """,
]

DROP = [
    "DROP TABLE IF EXISTS documents_feature_df",
    "DROP TABLE IF EXISTS documents_posting",
]


class Migration(migrations.Migration):
    dependencies = [("documents", "0001_initial")]

    operations = [migrations.RunSQL(sql=tuple(CREATE), reverse_sql=tuple(DROP))]
