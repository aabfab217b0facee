"""A transactional count of documents ever added to the index, and a partial index on the
features with df > 50, for the per-process cache of heavy features (`documents.index.store`).

A lookup may skip the df probe of a feature that had df <= F when the cache was read, as long
as fewer than max_df - F documents were added since: each added document raises a df by at
most 1 (removals only lower it). The count lives in `SLOTS` rows (slot = backend pid mod
SLOTS) so concurrent writers rarely wait on the same row; it is read in the lookup's own
snapshot, so the bound is exact.
"""

from django.db import migrations

CREATE = [
    """
    CREATE TABLE documents_index_adds (
        slot smallint PRIMARY KEY,
        n bigint NOT NULL CHECK (n >= 0)
    )
    """,
    "CREATE INDEX documents_feature_df_heavy ON documents_feature_df (df) WHERE df > 50",
]

DROP = [
    "DROP INDEX IF EXISTS documents_feature_df_heavy",
    "DROP TABLE IF EXISTS documents_index_adds",
]


class Migration(migrations.Migration):
    dependencies = [("documents", "0004_posting_lookup_covering")]

    operations = [migrations.RunSQL(sql=tuple(CREATE), reverse_sql=tuple(DROP))]
