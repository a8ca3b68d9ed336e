"""Between the database rows and the engine's Health: load, compare, store, and (de)serialize for the event log.

The engine never removes or reorders wounds and illnesses, it only appends; rows are kept in id order, so the i-th
row is the i-th engine object.
"""

from dataclasses import asdict
from typing import Any

from characters.models import Character
from rules import engine
from rules.models import Illness, Wound


def wound_of(row: Wound) -> engine.Wound:
    return engine.Wound(row.kind, row.remaining, row.treated, row.inflicted_at, row.illness_key or None)


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
        tuple(wound_of(row) for row in wounds),
        tuple(illness_of(row) for row in illnesses),
        now=clock,
        died_at=character.died_at,
        progress=tuple(character.recovery_progress.items()),
        protection=tuple((category, day) for category, day in character.protection),
    )


def disease_id(illness: engine.Illness) -> int:
    return int(str(illness.key).removeprefix("disease:"))


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
        for row, wound in zip(wounds, new.wounds, strict=False):
            if (row.remaining, row.treated) != (wound.amount, wound.treated):
                row.remaining, row.treated = wound.amount, wound.treated
                self.wounds_to_update.append(row)
        for wound in new.wounds[len(wounds) :]:
            self.wounds_to_create.append(
                Wound(
                    character=character,
                    kind=wound.kind,
                    amount=wound.amount,
                    remaining=wound.amount,
                    treated=wound.treated,
                    inflicted_at=wound.inflicted_at,
                    illness_key=wound.illness_key or "",
                )
            )
        self.wounds_to_delete += [row.pk for row in wounds[len(new.wounds) :]]

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
        if self.wounds_to_delete:
            Wound.objects.filter(pk__in=self.wounds_to_delete).delete()
        if self.illnesses_to_delete:
            # Their wounds point at them only by key, so deleting an episode deletes no other row.
            Illness.objects.filter(pk__in=self.illnesses_to_delete).delete()
        if self.wounds_to_update:
            Wound.objects.bulk_update(self.wounds_to_update, ["remaining", "treated"])
        if self.wounds_to_create:
            Wound.objects.bulk_create(self.wounds_to_create)
        if self.illnesses_to_update:
            Illness.objects.bulk_update(self.illnesses_to_update, ["treated", "medicated", "cured_at", "weeks_charged"])
        if self.illnesses_to_create:
            Illness.objects.bulk_create(self.illnesses_to_create)
        if self.characters:
            Character.objects.bulk_update(self.characters, ["pg", "died_at", "recovery_progress", "protection"])


# --- the event log's form of a state -------------------------------------------------------------------------------


def to_json(health: engine.Health) -> dict[str, Any]:
    return to_plain(asdict(health))


def to_plain(value: Any) -> Any:
    # JSON has lists, not tuples: convert now so the stored and the in-memory forms compare equal.
    if isinstance(value, (list, tuple)):
        return [to_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: to_plain(item) for key, item in value.items()}
    return value


def from_json(data: dict[str, Any]) -> engine.Health:
    return engine.Health(
        data["constitution"],
        # Events written before Wound lost its unused `key` still carry it.
        tuple(engine.Wound(**{k: v for k, v in wound.items() if k != "key"}) for wound in data["wounds"]),
        tuple(engine.Illness(**illness) for illness in data["illnesses"]),
        now=data["now"],
        died_at=data["died_at"],
        progress=tuple((kind, seconds) for kind, seconds in data["progress"]),
        protection=tuple((category, day) for category, day in data["protection"]),
    )
