"""`Collection.all_archives`: "no archive chosen" (check against all of them) kept apart from
"the chosen archives are gone" (check against none). Collections that have chosen archives
today are marked as choosing."""

from django.db import migrations, models

CHOOSING = """
UPDATE documents_collection SET all_archives = false
WHERE id IN (SELECT from_collection_id FROM documents_collection_archives)
"""


class Migration(migrations.Migration):
    dependencies = [("documents", "0017_natural_sort_collation")]

    operations = [
        migrations.AddField(
            model_name="collection",
            name="all_archives",
            field=models.BooleanField(db_default=True, default=True),
        ),
        migrations.RunSQL(sql=CHOOSING, reverse_sql=migrations.RunSQL.noop),
    ]
