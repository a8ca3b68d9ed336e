"""Between the database rows and the engine's Health: load, compare, store, and (de)serialize for the event log.

The engine never removes or reorders wounds and illnesses, it only appends; rows are kept in id order, so the i-th
illness row is the i-th engine illness. A wound row stands for `times` equal engine wounds inflicted `every` seconds
apart (a run: a serious illness's weekly losses), so the engine's wounds are the rows' runs one after another; the
event log stores them as runs too.
"""

import functools
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, cast

from django.db import connection, models

from characters.models import Character
from config.written import in_one_trip
from rules import engine
from rules.models import Illness, Wound


def moments(inflicted_at: int, times: int, every: int) -> list[int]:
    """When each wound of a run was inflicted: `times` of them, `every` seconds apart from `inflicted_at`."""
    return [inflicted_at + n * every for n in range(times)]


def wounds_of(row: Wound) -> list[engine.Wound]:
    """The engine's wounds a row stands for."""
    key = row.illness_key or None
    if row.every == 0:  # the same wound `times` over (blows at one moment): one frozen value, repeated
        return [engine.Wound(row.kind, row.remaining, row.treated, row.inflicted_at, key)] * row.times
    return [
        engine.Wound(row.kind, row.remaining, row.treated, at, key)
        for at in moments(row.inflicted_at, row.times, row.every)
    ]


def illness_of(row: Illness) -> engine.Illness:
    return engine.Illness(
        row.category,
        row.penalty,
        row.pg_per_week,
        row.treated,
        row.medicated,
        row.since,
        name=row.disease.name,
        key=f"disease:{row.disease_id}",
        cured_at=row.cured_at,
        weeks_charged=row.weeks_charged,
    )


def health_of(character: Character, wounds: list[Wound], illnesses: list[Illness], clock: int) -> engine.Health:
    return engine.Health(
        character.constitution,
        tuple(wound for row in wounds for wound in wounds_of(row)),
        tuple(illness_of(row) for row in illnesses),
        now=clock,
        died_at=character.died_at,
        progress=tuple(character.recovery_progress.items()),
        protection=tuple((category, day) for category, day in character.protection),
    )


def disease_id(illness: engine.Illness) -> int:
    return int(str(illness.key).removeprefix("disease:"))


# A statement and its parameters, to run in one round trip with others (config.written.in_one_trip).
type Statement = tuple[str, list[Any]]


class Changes:
    """Rows to write for many characters at once, so an action costs the same few queries for 5 or 2000."""

    def __init__(self) -> None:
        self.characters: list[Character] = []
        self.wounds_to_update: list[Wound] = []
        self.wounds_to_create: list[Wound] = []
        self.illnesses_to_update: list[Illness] = []
        self.illnesses_to_create: list[Illness] = []
        self.wounds_to_delete: list[int] = []
        self.illnesses_to_delete: list[int] = []

    def record(self, character: Character, wounds: list[Wound], illnesses: list[Illness], new: engine.Health) -> None:
        """Make `character` and its rows say what `new` says. Rows past the end of `new` are deleted (undo)."""
        wanted = runs(new.wounds, [row.amount for row in wounds for _n in range(row.times)])
        # Rows that still start the same run are updated; from the first that does not, the rest are written anew.
        kept = 0
        for row, run in zip(wounds, wanted, strict=False):
            if (row.kind, row.amount, row.inflicted_at, row.illness_key) != (
                run.kind,
                run.amount,
                run.inflicted_at,
                run.illness_key or "",
            ):
                break
            if (row.remaining, row.treated, row.times, row.every) != (run.remaining, run.treated, run.times, run.every):
                row.remaining, row.treated, row.times, row.every = run.remaining, run.treated, run.times, run.every
                self.wounds_to_update.append(row)
            kept += 1
        self.wounds_to_delete += [row.pk for row in wounds[kept:]]
        self.wounds_to_create += [run.row(character) for run in wanted[kept:]]

        for episode, illness in zip(illnesses, new.illnesses, strict=False):
            fields = (illness.treated, illness.medicated, illness.cured_at, illness.weeks_charged)
            if (episode.treated, episode.medicated, episode.cured_at, episode.weeks_charged) != fields:
                episode.treated, episode.medicated, episode.cured_at, episode.weeks_charged = fields
                self.illnesses_to_update.append(episode)
        for illness in new.illnesses[len(illnesses) :]:
            self.illnesses_to_create.append(
                Illness(
                    character=character,
                    disease_id=disease_id(illness),
                    category=illness.category,
                    penalty=illness.penalty,
                    pg_per_week=illness.pg_per_week,
                    since=illness.since,
                    treated=illness.treated,
                    medicated=illness.medicated,
                    cured_at=illness.cured_at,
                    weeks_charged=illness.weeks_charged,
                )
            )
        self.illnesses_to_delete += [row.pk for row in illnesses[len(new.illnesses) :]]

        character.pg = new.pg
        character.died_at = new.died_at
        character.recovery_progress = dict(new.progress)
        character.protection = [list(entry) for entry in new.protection]
        self.characters.append(character)

    def save(self) -> None:
        """Write what was recorded now (an action writes it with its log entry instead: `statements`)."""
        writes = self.statements()
        if writes:
            in_one_trip(writes)

    def statements(self) -> list[Statement]:
        """The writes that make the rows say what was recorded, as statements to run in one round trip with the
        action's log entry (rules.actions.core.log): deletes first, then updates, then new rows."""
        writes = []
        if self.wounds_to_delete:
            writes.append(delete_statement(Wound, self.wounds_to_delete))
        if self.illnesses_to_delete:
            # Their wounds point at them only by key, so deleting an episode deletes no other row.
            writes.append(delete_statement(Illness, self.illnesses_to_delete))
        if self.wounds_to_update:
            writes.append(update_statement(self.wounds_to_update, ["remaining", "treated", "times", "every"]))
        if self.wounds_to_create:
            writes.append(insert_statement(self.wounds_to_create))
        if self.illnesses_to_update:
            writes.append(
                update_statement(self.illnesses_to_update, ["treated", "medicated", "cured_at", "weeks_charged"])
            )
        if self.illnesses_to_create:
            writes.append(insert_statement(self.illnesses_to_create))
        if self.characters:
            writes.append(update_statement(self.characters, ["pg", "died_at", "recovery_progress", "protection"]))
        return writes


def update(rows: Sequence[models.Model], names: list[str]) -> None:
    """Write these fields of many rows of one table in one statement (update_statement)."""
    in_one_trip([update_statement(rows, names)])


def update_statement(rows: Sequence[models.Model], names: list[str]) -> Statement:
    """These fields of many rows of one table, written in one statement, each column sent as one array. (Django's
    bulk_update writes a CASE per field over every row, which PostgreSQL evaluates for each row: its cost grows with
    the square of the rows, seconds for a few thousand.)"""
    sql, fields_ = _update_sql(type(rows[0]), tuple(names))
    return sql, [[field.get_db_prep_save(getattr(row, field.attname), connection) for row in rows] for field in fields_]


def insert_statement(rows: Sequence[models.Model]) -> Statement:
    """New rows of one table in one statement, each column sent as one array (the rows are not given their ids)."""
    sql, fields_ = _insert_sql(type(rows[0]))
    values = [[field.get_db_prep_save(field.pre_save(row, add=True), connection) for row in rows] for field in fields_]
    return sql, values


def insert_one_statement(row: models.Model) -> Statement:
    """One new row, whose id the statement returns (its columns may be arrays, which unnest would flatten)."""
    sql, fields_ = _insert_one_sql(type(row))
    return sql, [field.get_db_prep_save(field.pre_save(row, add=True), connection) for field in fields_]


def delete_statement(model: type[models.Model], ids: list[int]) -> Statement:
    """These rows of one table deleted, their ids sent as one array."""
    return _delete_sql(model), [list(ids)]


# A statement's text depends only on its table and columns: written once per process (~20 µs each, four a change).


@functools.cache
def _update_sql(model: type[models.Model], names: tuple[str, ...]) -> tuple[str, list[models.Field]]:
    meta = model._meta
    assert meta.pk is not None
    fields_ = [meta.pk, *(cast(models.Field, meta.get_field(name)) for name in names)]
    quote = connection.ops.quote_name
    columns = [quote(_column(field)) for field in fields_]
    assignments = ", ".join(f"{column} = v.{column}" for column in columns[1:])
    return (
        f"UPDATE {quote(meta.db_table)} AS t SET {assignments} "
        f"FROM unnest({_arrays(fields_)}) AS v({', '.join(columns)}) WHERE t.{columns[0]} = v.{columns[0]}",
        fields_,
    )


@functools.cache
def _insert_sql(model: type[models.Model]) -> tuple[str, list[models.Field]]:
    fields_ = _inserted(model)
    return f"{_insert_into(model, fields_)} SELECT * FROM unnest({_arrays(fields_)})", fields_


@functools.cache
def _insert_one_sql(model: type[models.Model]) -> tuple[str, list[models.Field]]:
    fields_ = _inserted(model)
    pk = model._meta.pk
    assert pk is not None
    returning = connection.ops.quote_name(_column(pk))
    placeholders = ", ".join("%s" for _field in fields_)
    return f"{_insert_into(model, fields_)} VALUES ({placeholders}) RETURNING {returning}", fields_


@functools.cache
def _delete_sql(model: type[models.Model]) -> str:
    pk = model._meta.pk
    assert pk is not None
    quote = connection.ops.quote_name
    return f"DELETE FROM {quote(model._meta.db_table)} WHERE {quote(_column(pk))} = ANY({_arrays([pk])})"


def _inserted(model: type[models.Model]) -> list[models.Field]:
    return [field for field in model._meta.concrete_fields if not field.primary_key]


def _insert_into(model: type[models.Model], fields_: list[models.Field]) -> str:
    quote = connection.ops.quote_name
    return f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(_column(field)) for field in fields_)})"


def _arrays(fields_: list[models.Field]) -> str:
    """One array parameter per field, cast to an array of its column's type."""
    return ", ".join(
        f"%s::{field.rel_db_type(connection) if field.primary_key else field.db_type(connection)}[]"
        for field in fields_
    )


def _column(field: models.Field) -> str:
    assert field.column is not None
    return field.column


# --- runs of equal wounds ------------------------------------------------------------------------------------------


@dataclass
class Run:
    """`times` equal wounds, the n-th inflicted at `inflicted_at + n × every`; `amount` is each one's first amount."""

    kind: str
    amount: int
    remaining: int
    treated: bool
    inflicted_at: int
    illness_key: str | None
    times: int = 1
    every: int = 0

    def takes(self, kind: str, amount: int, remaining: int, treated: bool, at: int, key: str | None) -> bool:
        """Add the next wound to this run if it is one more of it; say whether it was."""
        if (kind, amount, remaining, treated, key) != (
            self.kind,
            self.amount,
            self.remaining,
            self.treated,
            self.illness_key,
        ):
            return False
        step = at - (self.inflicted_at + (self.times - 1) * self.every)
        if self.times == 1 and step >= 0:
            self.every = step
        elif step != self.every:
            return False
        self.times += 1
        return True

    def row(self, character: Character) -> Wound:
        return Wound(
            character=character,
            kind=self.kind,
            amount=self.amount,
            remaining=self.remaining,
            treated=self.treated,
            inflicted_at=self.inflicted_at,
            illness_key=self.illness_key or "",
            times=self.times,
            every=self.every,
        )


def runs(wounds: tuple[engine.Wound, ...], first_amounts: list[int]) -> list[Run]:
    """The engine's wounds as runs, longest first. `first_amounts` are the stored wounds' first amounts; a wound past
    them is new, and its first amount is what it has now."""
    found: list[Run] = []
    for index, wound in enumerate(wounds):
        amount = first_amounts[index] if index < len(first_amounts) else wound.amount
        key = wound.illness_key
        if not (found and found[-1].takes(wound.kind, amount, wound.amount, wound.treated, wound.inflicted_at, key)):
            found.append(Run(wound.kind, amount, wound.amount, wound.treated, wound.inflicted_at, key))
    return found


# --- the event log's form of a state -------------------------------------------------------------------------------

# A run in the log is one wound's fields plus "times" and "every" (only when it stands for more than one wound).
# Bounds what a document from elsewhere can make us expand (rules.backup reads states from imports).
RUN_MAX = 100_000


def to_json(health: engine.Health) -> dict[str, Any]:
    state: dict[str, Any] = {field.name: getattr(health, field.name) for field in fields(health)}
    state["wounds"] = [_wound_json(run) for run in runs(health.wounds, [])]
    state["illnesses"] = [{f.name: getattr(i, f.name) for f in fields(i)} for i in health.illnesses]
    state["progress"] = [list(pair) for pair in health.progress]
    state["protection"] = [list(pair) for pair in health.protection]
    return state


def _wound_json(run: Run) -> dict[str, Any]:
    wound = {
        "kind": run.kind,
        "amount": run.remaining,
        "treated": run.treated,
        "inflicted_at": run.inflicted_at,
        "illness_key": run.illness_key,
    }
    return wound if run.times == 1 else {**wound, "times": run.times, "every": run.every}


def to_plain(value: Any) -> Any:
    # JSON has lists, not tuples: convert now so the stored and the in-memory forms compare equal.
    if isinstance(value, (list, tuple)):
        return [to_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: to_plain(item) for key, item in value.items()}
    return value


def _wounds_from_json(wound: dict[str, Any]) -> list[engine.Wound]:
    # Events written before Wound lost its unused `key` still carry it.
    values = {k: v for k, v in wound.items() if k not in ("key", "times", "every")}
    times, every = wound.get("times", 1), wound.get("every", 0)
    if not (type(times) is int and type(every) is int and 1 <= times <= RUN_MAX and every >= 0):
        raise ValueError(f"not a run of wounds: {times!r} every {every!r}")
    first = engine.Wound(**values)  # checks the fields, inflicted_at included
    return [replace(first, inflicted_at=at) for at in moments(first.inflicted_at, times, every)]


def from_json(data: dict[str, Any]) -> engine.Health:
    return engine.Health(
        data["constitution"],
        tuple(w for wound in data["wounds"] for w in _wounds_from_json(wound)),
        tuple(engine.Illness(**illness) for illness in data["illnesses"]),
        now=data["now"],
        died_at=data["died_at"],
        progress=tuple((kind, seconds) for kind, seconds in data["progress"]),
        protection=tuple((category, day) for category, day in data["protection"]),
    )
