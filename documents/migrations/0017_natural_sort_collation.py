"""An ICU collation that orders digits by their number ("2.txt" before "10.txt"), for the
collection page's sort by name (`selectors.DOCUMENT_ORDERS`). PostgreSQL's Debian packages are
built with ICU."""

from django.db import migrations

# A server built without ICU gets a plain copy of "C" under the same name: names then sort as
# text ("10" before "2"), and nothing else changes.
CREATE = """
DO $$
BEGIN
    CREATE COLLATION IF NOT EXISTS natural_sort (provider = icu, locale = 'und-u-kn-true');
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
    CREATE COLLATION IF NOT EXISTS natural_sort FROM "C";
END
$$
"""


class Migration(migrations.Migration):
    dependencies = [("documents", "0016_document_indexed_xid")]

    operations = [
        migrations.RunSQL(sql=CREATE, reverse_sql="DROP COLLATION IF EXISTS natural_sort"),
    ]
