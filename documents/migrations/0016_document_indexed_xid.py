from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("documents", "0015_document_template")]

    operations = [
        migrations.AddField(
            model_name="document",
            name="indexed_xid",
            field=models.BigIntegerField(blank=True, editable=False, null=True),
        ),
    ]
