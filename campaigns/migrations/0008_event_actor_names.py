from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0007_party_view_and_check_kinds'),
    ]

    operations = [
        migrations.AddField(
            model_name='event',
            name='actor_name',
            field=models.CharField(blank=True, default='', max_length=150),
        ),
        migrations.AddField(
            model_name='event',
            name='undone_by_name',
            field=models.CharField(blank=True, default='', max_length=150),
        ),
    ]
