from django.db import migrations

# docs/rules.md §5: name, category, penalty, PG per week.
BUILTIN = [
    ("Resfrío común", "common", -1, None),
    ("Fiebre", "common", -2, None),
    ("Gripe", "common", -2, None),
    ("Peste", "serious", -2, 1),
    ("Tuberculosis", "serious", -2, 2),
]


def add_builtin(apps, schema_editor):
    Disease = apps.get_model("rules", "Disease")
    for name, category, penalty, pg_per_week in BUILTIN:
        Disease.objects.get_or_create(
            name=name, campaign=None, builtin=True,
            defaults={"category": category, "penalty": penalty, "pg_per_week": pg_per_week},
        )


def remove_builtin(apps, schema_editor):
    apps.get_model("rules", "Disease").objects.filter(builtin=True, illnesses=None).delete()


class Migration(migrations.Migration):
    dependencies = [("rules", "0001_initial")]
    operations = [migrations.RunPython(add_builtin, remove_builtin)]
