"""The fence around config/compiled.py: every private name of Django it builds rows with, and the shape it uses each
in, named here one by one. An upgrade of Django that removes or changes one fails here with one line that says which,
not as wrong rows somewhere else. pyproject.toml pins Django to the minor version these are written against."""

import inspect

import django
import pytest
from django.db import connection
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Model, Value
from django.db.models.query import FlatValuesListIterable, ModelIterable, ValuesListIterable, get_related_populators

from campaigns.models import Event

PINNED = (6, 1)  # pyproject.toml: "django>=6.1,<6.2"


def test_django_is_the_minor_version_config_compiled_is_written_against():
    assert django.VERSION[:2] == PINNED, f"config/compiled.py is written against Django {PINNED}: check its fence"


def parameters(function: object) -> list[str]:
    return list(inspect.signature(function).parameters)  # type: ignore[arg-type]


def test_the_functions_it_calls_take_what_it_gives_them():
    changed = []
    if parameters(get_related_populators) != ["klass_info", "select", "db", "fetch_mode"]:
        changed.append(f"django.db.models.query.get_related_populators{inspect.signature(get_related_populators)}")
    if "fetch_mode" not in parameters(Model.from_db):
        changed.append(f"Model.from_db{inspect.signature(Model.from_db)} (no fetch_mode)")
    for name in ("validate_no_broken_transaction", "wrap_database_errors", "ensure_connection"):
        if not hasattr(BaseDatabaseWrapper, name):
            changed.append(f"BaseDatabaseWrapper.{name}")
    for iterable in (ModelIterable, ValuesListIterable, FlatValuesListIterable):
        if not isinstance(iterable, type):
            changed.append(f"django.db.models.query.{iterable}")
    assert not changed, f"config/compiled.py: Django changed {changed}"


@pytest.mark.django_db
def test_the_querysets_and_compilers_hold_what_it_reads():
    """A queryset of models with select_related and an annotation, and one of values_list: the private attributes
    config.compiled.Making reads of each, set as it expects after `as_sql`."""
    queryset = Event.objects.filter(pk=1).select_related("actor").annotate(one=Value(1))
    compiler = queryset.query.get_compiler(using=queryset.db)
    compiler.as_sql()
    missing = [
        f"QuerySet.{name}"
        for name in ("_iterable_class", "_fetch_mode", "_prefetch_related_lookups", "_known_related_objects")
        if not hasattr(queryset, name)
    ]
    if not hasattr(getattr(queryset, "_fetch_mode", None), "track_peers"):
        missing.append("QuerySet._fetch_mode.track_peers")
    missing += [
        f"SQLCompiler.{name}"
        for name in ("klass_info", "select", "col_count", "annotation_col_map", "get_converters")
        if not hasattr(compiler, name)
    ]
    assert not missing, f"config/compiled.py: Django no longer has {missing}"
    info = compiler.klass_info
    assert isinstance(info, dict) and {"model", "select_fields"} <= info.keys(), f"klass_info is now {info!r}"
    assert info["model"] is Event and info["related_klass_infos"], "klass_info no longer names the rows read with it"
    assert queryset._iterable_class is ModelIterable
    assert isinstance(compiler.annotation_col_map, dict) and "one" in compiler.annotation_col_map
    assert Event.objects.values_list("pk")._iterable_class is ValuesListIterable
    assert Event.objects.values_list("pk", flat=True)._iterable_class is FlatValuesListIterable
    columns = [column[0] for column in compiler.select[: compiler.col_count]]
    assert isinstance(compiler.get_converters(columns), dict)
    connection.validate_no_broken_transaction()  # callable, and quiet in a healthy transaction
