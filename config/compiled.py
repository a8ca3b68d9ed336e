"""Queries built and compiled to SQL once per process, then run again with other values.

Building a queryset and compiling it to SQL costs about as much as running it against PostgreSQL here (~0.4 ms a
query: issue 22). A page or an action runs the same few queries on every request, with only an id changing: those
are written once as a function of their slots —

    CHARACTERS = Compiled(lambda campaign: Character.objects.filter(campaign_id=campaign).order_by("id"))
    CHARACTERS.list(campaign=5)

The function is called once, with a `Slot` for each argument (so a value can never be baked into the SQL by mistake:
whatever changes between calls must be an argument); its queryset is compiled then, and each call runs that SQL with
the slots filled, on the calling thread's connection, and builds rows exactly as the ORM does (`Making`: model
instances with `select_related` and annotations, `values_list`'s rows). A list goes into a query through the `any`
lookup (`pk__any=ids`: `= ANY(array)`, one statement whatever the list's length). `together` runs several compiled
queries in one round trip: what a screen's drawing reads first (play.screens.snapshot.Snapshot.read_ahead).

`digests` asks PostgreSQL instead for a digest of the rows each query would give (the md5 of their text, in their
order): what a screen drawn from those rows is kept under (play.screens.whole_screen), so that asking whether it is
still current costs one round trip and no rows. `together(..., digested=True)` reads the rows with the digest of
exactly those rows (the same statement, so the same snapshot of the database).

Each compiled query is also a *prepared statement* on every connection that runs it: the first time it runs on a
connection it is sent once as `PREPARE name AS …` (its slots as `$1, $2…`, its fixed values written in), and every
run after that is `EXECUTE name(values)`, so PostgreSQL does not parse and plan it again on each call (planning was
about a third of a drawing's reads: issue 22); a connection new to the pool is given every statement prepared in the
process so far in one round trip at its first use (`prepared_on`). A prepared statement lives as long as its connection
(the pool keeps them; a rolled-back transaction does not undo one), which is why a pooler in front of PostgreSQL must
work in session mode (README). A migration under a running process: PostgreSQL plans a statement again by itself after
any change of the tables (an added column included: each statement names its columns); one whose result no longer fits
(a column's type changed) is prepared again on its connection and sent once more (`sent`). The `PREPARE` is sent on the
connection itself, outside Django's query log: it happens once per connection and query, not per request, so the per-
request query counts the tests assert do not see it. An action's writes, sent in one round trip (config.written), are
prepared statements the same way.

Used for the reads a benchmark names, and no others: the eight every quick damage makes (`bench/compiled.py`: the
session, the account, the campaign as its GM sees it, the characters in play, the campaign's lock, the touched
characters' wounds, the log's latest page, the checks pending: 7.7 ms through the ORM, 1.8 ms compiled, against
0.9 ms for eight `SELECT 1` round trips, on 2026-12-05), and the rows every drawing of a change and every screen
reads first, together in one round trip (play.screens.snapshot, campaigns.access's roster, the cards' wounds and
illnesses: `bench/live.py`).

It builds rows with Django's private internals — QuerySet's `_iterable_class`, `_fetch_mode`,
`_prefetch_related_lookups` and `_known_related_objects`; SQLCompiler's `klass_info`, `select`, `col_count`,
`annotation_col_map` and `get_converters`; `get_related_populators`; `Model.from_db(..., fetch_mode=)`; the
connection's `validate_no_broken_transaction` — so Django is pinned to the minor version they are written against
(pyproject.toml), and tests/test_compiled_fence.py names each one and fails with one line when an upgrade changes it.
"""

from __future__ import annotations

import hashlib
import inspect
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar, cast

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Expression, Field, ForeignObject, Lookup, Model, QuerySet
from django.db.models.query import FlatValuesListIterable, ModelIterable, ValuesListIterable, get_related_populators
from django.db.models.sql.compiler import SQLCompiler
from psycopg import sql as psql

from config.prepared import KNOWN, PREPARED, PREPARED_LOCK, prepared_on, stale

PLACEHOLDER = re.compile("%[s%]")
# A query's statement as run (""), as the digest of its rows, and as its rows each followed by the digest of them all:
# the digest is of the rows' text in the order the query gives them (PostgreSQL aggregates a subquery's rows in its
# order; were it ever otherwise, two digests of the same rows would differ: a drawing drawn again, never a stale one).
ROWS, DIGEST, DIGESTED = "", "_digest", "_digested"
VARIANTS = {
    ROWS: "{}",
    DIGEST: "SELECT md5(coalesce(string_agg(r::text, chr(30)), '')) FROM ({}) r",
    DIGESTED: "SELECT r.*, md5(string_agg(r::text, chr(30)) OVER ()) FROM ({}) r",
}
NO_ROWS = hashlib.md5(b"").hexdigest()  # noqa: S324 — PostgreSQL's md5(''): the digest of no rows


class Slot(Expression):
    """Where a call's value goes in a compiled query: compiled as one placeholder whose parameter is the slot itself."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, tuple[Any, ...]]:
        return "%s", (self,)

    def resolve_expression(self, *args: Any, **kwargs: Any) -> Slot:
        return self

    def get_group_by_cols(self) -> list[Any]:
        return []

    def __repr__(self) -> str:
        return f"Slot({self.name!r})"


class AnyOf(Lookup):
    """`field__any=values`: the field equals one of a list (PostgreSQL `= ANY(array)`), a list in one parameter."""

    lookup_name = "any"
    prepare_rhs = False

    def get_db_prep_lookup(self, value: Any, connection: Any) -> tuple[str, tuple[Any, ...]]:
        return "%s", (value if isinstance(value, Slot) else list(value),)

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, tuple[Any, ...]]:
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        array = f"{self.lhs.output_field.db_type(connection)}[]"
        return f"{lhs} = ANY({rhs}::{array})", (*lhs_params, *rhs_params)


Field.register_lookup(AnyOf)
ForeignObject.register_lookup(AnyOf)  # a foreign key's own lookups are its class's


class Compiled[M: Model]:
    """A query compiled once (when first run), run again with each call's values in its slots."""

    made: ClassVar[list[Compiled[Any]]] = []  # every one, for the test that runs each against the ORM

    def __init__(self, build: Callable[..., QuerySet[M, Any]]) -> None:
        self.name = f"compiled_{len(Compiled.made)}"  # its prepared statement's, on each connection
        Compiled.made.append(self)
        self.build = build
        self.names = list(inspect.signature(build).parameters)
        self.ready: tuple[QuerySet[M, Any], SQLCompiler, str, tuple[Any, ...]] | None = None
        self.types: dict[str, list[str]] = {}  # of its parameters, by variant, as PostgreSQL inferred them
        self.lock = threading.Lock()
        self.making: Making | None = None  # how its rows become what `list` gives, worked out at its first run
        self.slot_names: list[str] | None = None  # `slots`, worked out once
        self.executes: dict[str, str] = {}  # the text of its `EXECUTE`, by variant

    def compile(self) -> tuple[QuerySet[M, Any], SQLCompiler, str, tuple[Any, ...]]:
        with self.lock:
            if self.ready is None:
                queryset = self.build(*(Slot(name) for name in self.names))
                compiler = queryset.query.get_compiler(using=queryset.db)
                outside = not transaction.get_connection(queryset.db).in_atomic_block
                if queryset.query.select_for_update and outside:  # compiles only in a transaction, as it runs
                    with transaction.atomic(using=queryset.db):
                        sql, params = compiler.as_sql()
                else:
                    sql, params = compiler.as_sql()
                self.ready = queryset, compiler, sql, tuple(params)
            return self.ready

    def of_rows(self, rows: Sequence[tuple[Any, ...]]) -> list[Any]:
        """What `list` gives, from the rows of its statement fetched already (`together`)."""
        making = self.making or self.made_how()
        return making.make(making.converted(rows) if making.converters else rows)

    def made_how(self) -> Making:
        template, compiler, _sql, _params = self.ready or self.compile()
        with self.lock:
            if self.making is None:
                self.making = Making(template, compiler)
            return self.making

    def statement(self, *args: Any, **kwargs: Any) -> tuple[str, tuple[Any, ...]]:
        """The SQL and its parameters for these values: the `EXECUTE` of its prepared statement, prepared first on
        this thread's connection if it is not yet."""
        return self.variant(ROWS, dict(zip(self.names, args, strict=False)) | kwargs)

    def variant(self, variant: str, values: dict[str, Any]) -> tuple[str, tuple[Any, ...]]:
        """`statement`, of one of its VARIANTS."""
        template, _compiler, _sql, _params = self.ready or self.compile()
        if set(values) != set(self.names):
            raise TypeError(f"a compiled query takes {self.names}, was given {sorted(values)}")
        if template.query.select_for_update and not transaction.get_connection(template.db).in_atomic_block:
            raise transaction.TransactionManagementError("select_for_update cannot be used outside of a transaction.")
        types = self.prepare(connections[template.db], variant)
        slots = self.slots()
        execute = self.executes.get(variant)
        if execute is None:
            execute = f"EXECUTE {self.name}{variant}" + (f"({', '.join(['%s'] * len(slots))})" if slots else "")
            self.executes[variant] = execute
        return execute, tuple(fitted(values[name], kind) for name, kind in zip(slots, types, strict=True))

    def slots(self) -> list[str]:
        """Its slots' names in the order of its prepared statement's parameters ($1, $2…)."""
        if self.slot_names is None:
            _template, _compiler, _sql, params = self.ready or self.compile()
            self.slot_names = list(dict.fromkeys(param.name for param in params if isinstance(param, Slot)))
        return self.slot_names

    def prepare(self, connection: BaseDatabaseWrapper, variant: str = ROWS) -> list[str]:
        """Its statement (of one of its VARIANTS) prepared on this connection, once (a slot is a parameter, any other
        value is written in): the types PostgreSQL gave its parameters."""
        connection.ensure_connection()
        connection.validate_no_broken_transaction()
        raw = connection.connection
        name = self.name + variant
        prepared = prepared_on(connection)
        if name in prepared and variant in self.types:
            return self.types[variant]
        _template, _compiler, sql, params = self.ready or self.compile()
        numbers = {name: f"${number}" for number, name in enumerate(self.slots(), start=1)}
        fixed = iter(params)

        def written(placeholder: re.Match[str]) -> str:
            if placeholder.group() == "%%":
                return "%"
            param = next(fixed)
            return numbers[param.name] if isinstance(param, Slot) else psql.Literal(param).as_string(raw)

        statement = f"PREPARE {name} AS {VARIANTS[variant].format(PLACEHOLDER.sub(written, sql))}"
        with connection.wrap_database_errors:
            cursor = raw.execute(
                f"{statement}; SELECT parameter_types::text[] FROM pg_prepared_statements WHERE name = '{name}'"
            )
            cursor.nextset()
            row = cursor.fetchone()
        self.types[variant] = list(row[0]) if row else []
        prepared.add(name)
        with PREPARED_LOCK:
            KNOWN.setdefault(name, statement)
        return self.types[variant]

    def list(self, *args: Any, **kwargs: Any) -> list[M]:
        with sent([self.statement(*args, **kwargs)]) as cursor:
            return self.of_rows(cursor.fetchall())

    def rows(self, *args: Any, **kwargs: Any) -> Sequence[Any]:
        """For a `values_list` query: its rows (tuples, or values when flat)."""
        return cast(Sequence[Any], self.list(*args, **kwargs))

    def first(self, *args: Any, **kwargs: Any) -> M | None:
        """The first row or None (for a query of one row at most: by key, or limited)."""
        found = self.list(*args, **kwargs)
        return found[0] if found else None


class Making:
    """How a compiled query's rows become what its queryset would give — model instances as Django's ModelIterable
    makes them (with the rows `select_related` reads with them, and annotations), or `values_list`'s tuples and
    values — worked out once from its compiled form, instead of a queryset set up anew for every run (copied, its
    iterable and related populators made again: more than the rows themselves cost, ~10–30 µs a query, a dozen
    queries a change: issue 22). Other shapes (`values()`, named tuples, prefetching) are refused when first run.
    tests/test_compiled.py holds every compiled query of the project to the ORM."""

    def __init__(self, template: QuerySet[Any, Any], compiler: SQLCompiler) -> None:
        self.db = template.db
        columns = [column[0] for column in compiler.select[: compiler.col_count]]
        # The fields' own conversions (from_db_value); PostgreSQL's backend adds none. Each is handed the running
        # thread's connection.
        self.converters = list(compiler.get_converters(columns).items())
        iterable = template._iterable_class
        self.make: Callable[[Sequence[Any]], list[Any]]
        mode = template._fetch_mode  # type: ignore[attr-defined]
        prefetching = template._prefetch_related_lookups  # type: ignore[attr-defined]
        if prefetching or template._known_related_objects or mode.track_peers:  # type: ignore[attr-defined]
            raise TypeError(f"a compiled query reads its rows alone: {template.query}")
        if iterable is ModelIterable:
            self.make = self.models(compiler, mode)
        elif iterable is ValuesListIterable:
            count = compiler.col_count
            self.make = lambda rows: [tuple(row[:count]) for row in rows]
        elif iterable is FlatValuesListIterable:
            self.make = lambda rows: [row[0] for row in rows]
        else:
            raise TypeError(f"a compiled query gives model instances or values_list's rows: {template.query}")

    def models(self, compiler: SQLCompiler, mode: Any) -> Callable[[Sequence[Any]], list[Any]]:
        info, select = compiler.klass_info, compiler.select
        assert info is not None
        first, last = info["select_fields"][0], info["select_fields"][-1] + 1
        names = [column[0].target.attname for column in select[first:last]]
        model, db = info["model"], self.db
        related = get_related_populators(info, select, db, mode)  # they keep nothing of a row: made once for all
        annotations = list(compiler.annotation_col_map.items())

        def make(rows: Sequence[Any]) -> list[Any]:
            made = []
            for row in rows:
                instance = model.from_db(db, names, row[first:last], fetch_mode=mode)
                for populator in related:
                    populator.populate(row, instance)
                for name, position in annotations:
                    setattr(instance, name, row[position])
                made.append(instance)
            return made

        return make

    def converted(self, rows: Sequence[Any]) -> list[list[Any]]:
        connection = connections[self.db]
        done = []
        for row in rows:
            values = list(row)
            for position, (converters, expression) in self.converters:
                value = values[position]
                for converter in converters:
                    value = converter(value, expression, connection)
                values[position] = value
            done.append(values)
        return done


# The whole numbers each integer type holds.
INTEGERS = {"smallint": 2**15, "integer": 2**31, "bigint": 2**63}


def fitted(value: Any, kind: str) -> Any:
    """A slot's value for a parameter of this type: a whole number out of an integer type's range (a 20-digit id in a
    URL) is no row's, so it goes in as NULL, equal to nothing (out of a list, it is left out), as the ORM finds no row
    for it, where PostgreSQL would refuse the number."""
    limit = INTEGERS.get(kind.removesuffix("[]"))
    if limit is None:
        return value

    def fits(number: Any) -> bool:
        return not isinstance(number, int) or -limit <= number < limit

    if kind.endswith("[]") and isinstance(value, list | tuple):
        return [number for number in value if fits(number)]
    return value if fits(value) else None


def together(*reads: tuple[Compiled[Any], dict[str, Any]], digested: list[str] | None = None) -> list[list[Any]]:
    """Several compiled queries, each with its values, in one round trip to PostgreSQL (their statements one after
    another in one query string, as client-side binding allows): what each one's `list` gives, in order. Given a
    list `digested`, the digest of each one's rows (as `digests` gives it) is put in it, in order."""
    results = []
    variant = ROWS if digested is None else DIGESTED
    with sent([query.variant(variant, values) for query, values in reads]) as cursor:
        for query, _values in reads:
            rows = cursor.fetchall()
            if digested is not None:
                digested.append(rows[0][-1] if rows else NO_ROWS)
                rows = [row[:-1] for row in rows]
            results.append(query.of_rows(rows))
            cursor.nextset()
    return results


def digests(*reads: tuple[Compiled[Any], dict[str, Any]]) -> tuple[str, ...]:
    """The digest of the rows each of these compiled queries would give, in one round trip: equal digests, equal
    rows."""
    found = []
    with sent([query.variant(DIGEST, values) for query, values in reads]) as cursor:
        for _read in reads:
            found.append(cursor.fetchone()[0])
            cursor.nextset()
    return tuple(found)


@contextmanager
def sent(statements: Sequence[tuple[str, Sequence[Any]]]) -> Iterator[Any]:
    """A cursor on this thread's connection that has sent these statements as one query string, through Django (its
    execute wrappers, its errors): psycopg's own cursor, which received every statement's result with the query, read
    without Django wrapping each call again (a trip of thirteen statements is some thirty calls).

    A statement found stale (after a migration) has the connection's statements prepared anew: then the statements
    are sent once more, or, inside a transaction (which the error aborted), the error goes on and the connection's
    next use prepares them anew."""
    connection = connections[DEFAULT_DB_ALIAS]
    text = "; ".join(sql for sql, _params in statements)
    params = [p for _sql, params in statements for p in params]
    with connection.cursor() as cursor:
        try:
            cursor.execute(text, params)
        except DatabaseError as error:
            if not stale(error):
                raise
            with PREPARED_LOCK:
                PREPARED.pop(connection.connection, None)
            if connection.in_atomic_block:
                raise
            prepared_on(connection)
            cursor.execute(text, params)
        yield cursor.cursor
