"""The copydetect PostgreSQL extension (its `posting_pack` aggregate) is no longer used
(docs/decisions/0001-postgres-extension.md): databases that have it lose it, so that no
server upgrade looks for its library. Backwards there is nothing to do: lookups never need it.
"""

from django.db import migrations

DROP = "DROP EXTENSION IF EXISTS copydetect"


class Migration(migrations.Migration):
    dependencies = [("documents", "0023_report_exclusions_direction")]

    operations = [migrations.RunSQL(sql=DROP, reverse_sql=migrations.RunSQL.noop)]
