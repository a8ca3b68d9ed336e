"""A document's log walked forwards, as the actions wrote it (rules.backup.validate calls it): each entry has the
states its undo needs (before and after of each character it changed), starts at the clock and from the state the
previous one left, and the rows are where the log ends; each undo undoes the latest entry not yet undone, and says so;
characters come and go as its entries say."""

from __future__ import annotations

from typing import Any

import msgspec
from django.utils.translation import gettext as _

from rules import engine, events
from rules.backup.read import invalid_copy
from rules.backup.schema import Document, EventEntry, State
from rules.backup.states import States, comparable, settled
from rules.events import EventKind

# What each kind does (rules.events.Payload's flags), as the checks below ask it.
HEALTH_KINDS = {kind for kind, payload in events.PAYLOADS.items() if payload.health}
ABOUT_ONE = {kind for kind, payload in events.PAYLOADS.items() if payload.about_one}
IN_PLAY = {kind for kind, payload in events.PAYLOADS.items() if payload.in_play}
ADDING = {EventKind.CHARACTER_ADDED, EventKind.CHARACTERS_ADDED}
REMOVING = {EventKind.CHARACTER_REMOVED, EventKind.CHARACTERS_REMOVED}


class Replay:
    """The log walked forwards, as the actions wrote it: clocks, states, undos, who is in play."""

    def __init__(
        self, document: Document, payloads: list[events.Payload], rows: dict[str, engine.Health], states: States
    ) -> None:
        self.document, self.payloads, self.rows, self.states = document, payloads, rows, states
        # Each character's state as the log has left it so far, as written and as the engine's.
        self.current: dict[str, tuple[State, engine.Health]] = {}
        self.open: list[int] = []  # the entries an undo may still undo, latest last
        self.undone_by: dict[int, int] = {}
        # Who is in play: True, False once removed, absent before its entry adds it.
        added = {key for e in document.events if e.action in ADDING for key in e.characters}
        self.in_play = {c.key: True for c in document.characters if c.key not in added}

    def walk(self) -> None:
        clock = 0
        for index, (entry, payload) in enumerate(zip(self.document.events, self.payloads, strict=True)):
            at = f"$.events[{index}]"
            if entry.clock_before != clock:
                message = _("no sigue al reloj del cambio anterior (%(s)s s).") % {"s": clock}
                raise invalid_copy(f"{at}.clock_before", message)
            target = self._undone(at, index, payload) if entry.action == EventKind.UNDO else None
            clock = self._clock(at, index, entry, payload, target)
            self._states_needed(at, entry, payload, target)
            before = self._before(f"{at}.before", entry.before, entry.clock_before)
            after = self._states(f"{at}.after", entry.after, entry.clock_after)
            self._who(at, entry, target)
            self._what(at, entry, payload, target, before, after)
            self.current.update({key: (entry.after[key], found) for key, found in after.items()})
        self._end(clock)

    def _states(self, at: str, states: dict[str, State], clock: int) -> dict[str, engine.Health]:
        """An entry's states after it: each at the entry's clock, and one the engine leaves."""
        for key, state in states.items():
            if state.now != clock:
                raise invalid_copy(f"{at}.{key}.now", _("no es el reloj del cambio (%(s)s s).") % {"s": clock})
        return {key: self.states.of(f"{at}.{key}", state) for key, state in states.items()}

    def _before(self, at: str, states: dict[str, State], clock: int) -> dict[str, engine.Health]:
        """An entry's states before it: each the state the log left its character in (one the engine left, checked
        then), at the entry's clock, and nothing has fallen due since; a character's first state is checked anew."""
        found: dict[str, engine.Health] = {}
        for key, state in states.items():
            if key not in self.current:
                found |= self._states(at, {key: state}, clock)
                continue
            left, health_left = self.current[key]
            if state.now != clock:
                raise invalid_copy(f"{at}.{key}.now", _("no es el reloj del cambio (%(s)s s).") % {"s": clock})
            if _unclocked(state) != _unclocked(left):
                raise invalid_copy(f"{at}.{key}", _("no es el estado en que dejó a su personaje el registro."))
            if health_left.died_at is None and any(
                (due := illness.next_loss_at) is not None and due <= clock for illness in health_left.illnesses
            ):
                raise invalid_copy(f"{at}.{key}", _("le falta una pérdida semanal de su enfermedad, que ya tocaba."))
            found[key] = health_left
        return found

    def _undone(self, at: str, index: int, payload: events.Payload) -> EventEntry:
        assert isinstance(payload, events.Undo)
        entries = self.document.events
        if not self.open or entries[self.open[-1]].key != payload.event:
            raise invalid_copy(
                f"{at}.details.event", _("no es el último cambio sin deshacer, que es el que se deshace.")
            )
        undone = self.open.pop()
        self.undone_by[undone] = index
        target = entries[undone]
        if (payload.action, payload.undone.details, payload.undone.characters) != (
            target.action,
            target.details,
            target.characters,
        ):
            raise invalid_copy(f"{at}.details.undone", _("no repite lo que deshizo."))
        return target

    def _clock(self, at: str, index: int, entry: EventEntry, payload: events.Payload, target: Any) -> int:
        if target is not None:
            clock = target.clock_before  # an undo puts the clock back
        else:
            self.open.append(index)
            clock = entry.clock_before
            if isinstance(payload, events.Advance):
                low, high = engine.LIMITS["advance"]
                if not low <= payload.seconds <= high:
                    message = _("debe ser un número entero entre %(low)s y %(high)s.") % {"low": low, "high": high}
                    raise invalid_copy(f"{at}.details.seconds", message)
                clock += payload.seconds
        if entry.clock_after != clock:
            message = _("no cuadra con el reloj de antes y lo que hizo (%(s)s s).") % {"s": clock}
            raise invalid_copy(f"{at}.clock_after", message)
        return clock

    def _states_needed(self, at: str, entry: EventEntry, payload: events.Payload, target: EventEntry | None) -> None:
        """(The undo of) an entry puts back the state before of each character it changed: it has that state."""
        before, after, about = set(entry.before), set(entry.after), set(entry.characters)
        if entry.action in ABOUT_ONE and len(entry.characters) != 1:
            raise invalid_copy(f"{at}.characters", _("debe tratar de un solo personaje."))
        lacking = _("le falta el estado de antes de %(key)s: deshacerlo no podría devolvérselo.")
        if entry.action in HEALTH_KINDS or target is not None:
            for key in sorted(after - before):
                raise invalid_copy(f"{at}.before", lacking % {"key": key})
            for key in sorted(before - after):
                raise invalid_copy(f"{at}.after", _("le falta el estado de después de %(key)s.") % {"key": key})
        if entry.action in HEALTH_KINDS:
            for key in sorted(about - before):
                raise invalid_copy(f"{at}.before", lacking % {"key": key})
            if about != before:
                raise invalid_copy(f"{at}.characters", _("no nombra a cada personaje cuyo estado cambia."))
            named, told = _named(payload)
            for key in sorted(named - before):
                raise invalid_copy(f"{at}.details", lacking % {"key": key})
            for key in sorted(before - (before if told is None else told)):
                raise invalid_copy(f"{at}.details", _("no dice qué le pasó a %(key)s.") % {"key": key})
        elif target is not None:
            if before != set(target.before):
                raise invalid_copy(f"{at}.before", _("no devuelve el estado de antes de lo que deshizo."))
            if about != before | set(target.characters):
                raise invalid_copy(f"{at}.characters", _("no nombra a cada personaje cuyo estado cambia."))
        elif entry.action in ADDING:
            if before or after != about:
                raise invalid_copy(f"{at}.after", _("no es el estado de un personaje nuevo."))
        elif before or after:
            raise invalid_copy(f"{at}.before", _("no lleva estados de salud: este cambio no los tiene."))

    def _who(self, at: str, entry: EventEntry, target: EventEntry | None) -> None:
        """Only a character in play is acted on; characters come (added, an undone removal) and go (removed, an undone
        addition) as the log says."""
        kind = entry.action if target is None else target.action
        if target is None and entry.action in IN_PLAY:
            for key in entry.characters:
                if not self.in_play.get(key, False):
                    raise invalid_copy(f"{at}.characters", _("trata de %(key)s, que no está en juego.") % {"key": key})
        keys = entry.characters if target is None else target.characters
        if kind in ADDING:
            for key in keys:
                if target is None and key in self.in_play:
                    raise invalid_copy(
                        f"{at}.characters", _("añade a %(key)s, que ya estaba en la campaña.") % {"key": key}
                    )
                self.in_play[key] = target is None
        if kind in REMOVING:
            for key in keys:
                self.in_play[key] = target is not None

    def _what(
        self,
        at: str,
        entry: EventEntry,
        payload: events.Payload,
        target: EventEntry | None,
        before: dict[str, engine.Health],
        after: dict[str, engine.Health],
    ) -> None:
        """The PG an entry tells match its states; a new character is unhurt; an undo gives back the state before."""
        if isinstance(payload, events.Damage | events.Advance | events.Exertion):
            for key, (pg_before, pg_after) in payload.pg.items():
                if (before[key].pg, after[key].pg) != (pg_before, pg_after):
                    raise invalid_copy(f"{at}.details.pg", _("da unos PG que no son los de sus estados."))
        if isinstance(payload, events.Advance):
            # Time is the one action without dice or choices: its states after are exactly the engine's.
            resting = {str(key) for key in payload.resting}
            for key, found in after.items():
                where = f"{at}.after.{key}"
                settled(where, found, found.now, f"{where}.wounds[{{}}]".format, f"{where}.illnesses")
                rested = engine.advance(before[key], payload.seconds, resting=key in resting)
                if comparable(rested) != comparable(found):
                    raise invalid_copy(where, _("no es lo que el paso del tiempo hace con su estado."))
        if entry.action in ADDING:
            for key, found in after.items():
                if found != engine.Health(found.constitution, now=found.now):
                    raise invalid_copy(f"{at}.after.{key}", _("no es el estado de un personaje nuevo."))
        if target is not None:
            for key, written in entry.after.items():
                wanted = target.before[key]
                if target.action != EventKind.CHARACTER_EDITED:  # rules.actions.undo: its CON is the one it has now
                    wanted = msgspec.structs.replace(wanted, constitution=before[key].constitution)
                if written != wanted:
                    raise invalid_copy(f"{at}.after.{key}", _("no devuelve el estado de antes de lo que deshizo."))

    def _end(self, clock: int) -> None:
        """The undone entries are the undos' ones; the campaign's clock and rows are where the log ends."""
        for index, entry in enumerate(self.document.events):
            undone = index in self.undone_by
            if entry.undone != undone:
                raise invalid_copy(f"$.events[{index}].undone", _("no cuadra con los «deshacer» del registro."))
            if (entry.undone_at is not None) != undone or (entry.undone_by is not None and not undone):
                raise invalid_copy(f"$.events[{index}]", _("tiene fecha y autor de deshecho solo si está deshecho."))
        if self.document.campaign.clock != clock:
            message = _("no es el reloj en que acaba el registro (%(s)s s).") % {"s": clock}
            raise invalid_copy("$.campaign.clock", message)
        for index, character in enumerate(self.document.characters):
            state = self.current.get(character.key)
            if state is not None and comparable(state[1]) != comparable(self.rows[character.key]):
                raise invalid_copy(f"$.characters[{index}]", _("no es el estado en que lo deja el registro."))
            if self.in_play.get(character.key, not character.removed) == character.removed:
                raise invalid_copy(
                    f"$.characters[{index}].removed", _("no cuadra con las altas y retiradas del registro.")
                )


def _unclocked(state: State) -> State:
    """A state as the next entry about its character starts from it: its clock aside, and its illnesses without their
    disease's name (a site's disease renamed by its admin renames the episodes, not the log). The log writes a state
    one way only (rules.mapping.to_json), so that equal states are equal as written."""
    illnesses = [msgspec.structs.replace(illness, name="") for illness in state.illnesses]
    return msgspec.structs.replace(state, now=0, illnesses=illnesses)


def _named(payload: events.Payload) -> tuple[set[str], set[str] | None]:
    """The characters an entry's details name, and those whose change they tell (None: they tell no one's)."""
    named: set[Any]
    told: set[Any] | None
    if isinstance(payload, events.Damage | events.Exertion):
        told = set(payload.damage) & set(payload.pg)
        named = set(payload.damage) | set(payload.pg) | {roll.character for roll in payload.rolls}
    elif isinstance(payload, events.Advance):
        told = named = set(payload.pg)
    elif isinstance(payload, events.Expose):
        told = {roll.character for roll in payload.rolls}
        named = told | set(payload.fell_ill)
    else:
        return set(), None
    return {str(key) for key in named}, {str(key) for key in told}
