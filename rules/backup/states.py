"""A character's state, from its rows or from the log, is one the engine leaves: a PG its wounds and death give, no one
alive at 0 PG and no death without the damage that kills, an illness's wounds naming that illness, nothing later than
its clock, and nothing due at its own moment — a weekly loss not charged, or recovery progress that has reached the
interval of the wound healing next (a free PG): `engine.advance(state, 0)` changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from django.utils.translation import gettext as _

from rules import engine
from rules.backup.read import invalid_copy
from rules.backup.schema import CharacterEntry, State, health, wound_count
from rules.models import WoundKind

WOUNDS_MAX = 2_000_000  # engine wounds a document's states stand for, its history together: a few seconds to check
DEATH_DAMAGE = engine.max_pg(engine.CON_MIN)  # the least damage that kills, whatever the CON


def _later(now: int) -> str:
    return _("es posterior a su reloj (%(now)s s).") % {"now": now}


class States:
    """Checks one engine state, within a budget of wounds for the whole document."""

    def __init__(self, identities: set[str]) -> None:
        self.identities = identities  # "disease:<key>" of every disease the document names
        self.wounds = 0

    def spend(self, path: str, wounds: int) -> None:
        self.wounds += wounds
        if self.wounds > WOUNDS_MAX:
            raise invalid_copy(path, _("la copia pasa de %(max)s heridas con toda su historia.") % {"max": WOUNDS_MAX})

    def of(self, path: str, state: State) -> engine.Health:
        """A state of the log: as to_json writes it, and one the engine leaves."""
        self.spend(path, wound_count(state))
        for index, wound in enumerate(state.wounds):
            if isinstance(wound.times, int) != isinstance(wound.every, int):  # a run says both, a wound neither
                raise invalid_copy(f"{path}.wounds[{index}]", _("no es un estado de salud válido."))
        for index, illness in enumerate(state.illnesses):
            if illness.key not in self.identities:
                raise invalid_copy(f"{path}.illnesses[{index}].key", _("no nombra una enfermedad de la copia."))
        try:
            found = health(state)
        except ValueError as error:  # an illness whose weekly loss is not its category's
            raise invalid_copy(path, _("no es un estado de salud válido.")) from error
        if [(kind.value, seconds) for kind, seconds in state.progress] != list(found.progress):
            raise invalid_copy(f"{path}.progress", _("no es un estado de salud válido."))
        if [(category.value, day) for category, day in state.protection] != list(found.protection):
            raise invalid_copy(f"{path}.protection", _("no es un estado de salud válido."))
        runs = [index for index, wound in enumerate(state.wounds) for _n in range(wound.times or 1)]
        settled(path, found, found.now, lambda n: f"{path}.wounds[{runs[n]}]", f"{path}.illnesses")
        return found


def settled(path: str, found: engine.Health, at: int, wound_at: Callable[[int], str], illnesses_at: str) -> None:
    """What the engine leaves: no part later than its clock, and nothing due at `at` (`engine.advance` by 0 changes
    nothing). `wound_at` and `illnesses_at` say where the state's wounds and illnesses are written."""
    now = found.now
    identities = {illness.key for illness in found.illnesses}
    for index, wound in enumerate(found.wounds):
        if (wound.kind == WoundKind.ILLNESS) != (wound.illness_key is not None):
            raise invalid_copy(wound_at(index), _("una herida de enfermedad, y solo ella, nombra su enfermedad."))
        if wound.illness_key is not None and wound.illness_key not in identities:
            raise invalid_copy(wound_at(index), _("nombra una enfermedad que su personaje no ha tenido."))
        if wound.inflicted_at > now:
            raise invalid_copy(wound_at(index), _later(now))
    uncured: set[str | None] = set()
    for index, illness in enumerate(found.illnesses):
        where = f"{illnesses_at}[{index}]"
        if (illness.cured_at is not None) != illness.cured:
            raise invalid_copy(where, _("tiene fecha de curación solo si está curada."))
        if illness.since > now or (illness.cured_at is not None and not illness.since <= illness.cured_at <= now):
            raise invalid_copy(where, _later(now))
        if not illness.cured:
            if illness.key in uncured:
                raise invalid_copy(where, _("padece dos veces a la vez la misma enfermedad."))
            uncured.add(illness.key)
    if found.died_at is not None:
        if found.died_at > now:
            raise invalid_copy(f"{path}.died_at", _later(now))
        if found.progress:
            raise invalid_copy(path, _("murió y aún lleva progreso de recuperación."))
        if sum(w.amount for w in found.wounds if w.inflicted_at <= found.died_at) < DEATH_DAMAGE:
            message = _("dice que murió, pero sus heridas no llegan a los %(pg)s PG que matan como mínimo.")
            raise invalid_copy(path, message % {"pg": DEATH_DAMAGE})
    if len({day for _category, day in found.protection}) > 1 or any(
        day > now // engine.DAY for _category, day in found.protection
    ):
        raise invalid_copy(f"{path}.protection", _("no es un estado de salud válido."))
    _settled(path, replace(found, now=at))


def _settled(path: str, found: engine.Health) -> None:
    after = engine.advance(found, 0)
    if after == found:
        return
    if after.died_at != found.died_at:
        raise invalid_copy(path, _("tiene 0 PG sin haber muerto."))
    if len(after.wounds) > len(found.wounds):
        raise invalid_copy(path, _("le falta una pérdida semanal de su enfermedad, que ya tocaba."))
    for kind in engine.KINDS:
        healed = [w for w, a in zip(found.wounds, after.wounds, strict=True) if w.kind == kind and w != a]
        if healed:
            message = _(
                "su progreso de recuperación (%(kind)s) ya llega al intervalo de la herida que sana antes: el próximo "
                "PG sería gratis."
            )
            raise invalid_copy(path, message % {"kind": WoundKind(kind).label})
        if found.progress_of(kind) != after.progress_of(kind):
            message = _("lleva progreso de recuperación (%(kind)s) sin ninguna herida de ese tipo que pueda sanar.")
            raise invalid_copy(path, message % {"kind": WoundKind(kind).label})
    raise invalid_copy(path, _("no es un estado de salud válido."))


def character_health(
    path: str, character: CharacterEntry, clock: int, diseases: set[str], states: States
) -> engine.Health:
    """A character's rows: a state the engine leaves, at the campaign's clock (a removed one's stopped when it left)."""
    for index, wound in enumerate(character.wounds):
        if wound.remaining > wound.amount:
            problem = _("debe ser un número entero entre %(low)s y %(high)s.") % {"low": 0, "high": wound.amount}
            raise invalid_copy(f"{path}.wounds[{index}].remaining", problem)
    for index, illness in enumerate(character.illnesses):
        if illness.disease not in diseases:
            raise invalid_copy(f"{path}.illnesses[{index}].disease", _("no nombra una enfermedad de la copia."))
    states.spend(path, len(character.wounds))
    try:
        found = engine.Health(
            character.constitution,
            tuple(
                engine.Wound(w.kind.value, w.remaining, w.treated, w.inflicted_at, w.illness_key or None)
                for w in character.wounds
            ),
            tuple(
                engine.Illness(
                    i.category.value,
                    i.penalty,
                    i.pg_per_week,
                    i.treated,
                    i.medicated,
                    i.since,
                    key=f"disease:{i.disease}",
                    cured_at=i.cured_at,
                    weeks_charged=i.weeks_charged,
                )
                for i in character.illnesses
            ),
            now=clock,
            died_at=character.died_at,
            progress=tuple((kind.value, seconds) for kind, seconds in character.recovery_progress.items()),
            protection=tuple((category.value, day) for category, day in character.protection),
        )
    except ValueError as error:
        raise invalid_copy(path, _("no es un estado de salud válido.")) from error
    if [(category.value, day) for category, day in character.protection] != list(found.protection):
        raise invalid_copy(f"{path}.protection", _("no es un estado de salud válido."))
    if (character.pg, character.died_at) != (found.pg, found.died_at):
        message = _("dice %(pg)s PG, pero sus heridas y su muerte dan %(engine)s.")
        raise invalid_copy(path, message % {"pg": character.pg, "engine": found.pg})
    # A removed character's clock stopped when it left: what was due then was charged, not what is due now.
    moments = [w.inflicted_at for w in found.wounds] + [i.since for i in found.illnesses]
    moments += [i.cured_at for i in found.illnesses if i.cured_at is not None] + [found.died_at or 0]
    at = max(moments) if character.removed else clock
    settled(path, found, at, lambda n: f"{path}.wounds[{n}]", f"{path}.illnesses")
    return found


def comparable(found: engine.Health) -> engine.Health:
    """A state as the next one starts from it: its clock aside, and its illnesses without their disease's name (a
    site's disease renamed by its admin renames the episodes, not the log)."""
    return replace(found, now=0, illnesses=tuple(replace(illness, name="") for illness in found.illnesses))
