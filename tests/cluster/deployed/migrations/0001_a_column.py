"""A column added to a table the running version reads and writes: nullable, so the version still running (which does
not know it) goes on inserting rows."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("campaigns", "0015_access_tokens")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE campaigns_campaign ADD COLUMN deployed_note text NULL",
            "ALTER TABLE campaigns_campaign DROP COLUMN deployed_note",
        )
    ]
