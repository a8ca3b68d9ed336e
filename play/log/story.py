"""The campaign log in words, the parts every entry is written with: the registry of one wording function per event
kind (`words`, filled by the modules of this package), what an entry is written from (`Story`), a roll in words, and
`entry_for`, which words one event."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaigns.clock import format_clock
from campaigns.models import Event
from rules import events, explained
from rules.explained import check_anchor
from rules.models import disease_name
from rules.signs import minus

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

logger = logging.getLogger(__name__)

CHECK_NAMES: dict[str, tuple[StrOrPromise, StrOrPromise]] = {
    "fall": (gettext_lazy("caída"), gettext_lazy("Saltar")),
    "resistance": (gettext_lazy("resistencia"), gettext_lazy("CON")),
    "exertion": (gettext_lazy("esfuerzo"), gettext_lazy("CON")),
}


type Wording = Callable[[Story, Any], tuple[str, list[str]]]

# One wording function per payload type (rules.events): the entry's title and its lines.

WORDING: dict[type[events.Payload], Wording] = {}


def words[W: Wording](payload_type: type[events.Payload]) -> Callable[[W], W]:
    def register(wording: W) -> W:
        WORDING[payload_type] = wording
        return wording

    return register


@dataclass
class Entry:
    event: Event
    when: str
    title: str
    lines: list[str]
    who: str = ""  # who acted (who_acted)


def who_acted(username: str | None, actor_name: str) -> str:
    """Who an entry names as having acted: the account's username now (a rename shows at once), the name an imported
    entry keeps, or nothing for a script."""
    return username or actor_name


@dataclass
class Story:
    """What an entry is written from: the event, the characters' names, and whose lines to keep (None: everyone's)."""

    event: Event
    payload: events.Payload
    names: dict[int, str]
    only: int | None
    unseen: frozenset[int] = frozenset()  # characters the reader may not see named (access.kept_from)

    def name(self, pk: int | str) -> str:
        return self.names.get(int(pk), f"#{pk}") if str(pk).isdigit() else f"#{pk}"

    def mine(self, pk: int | str) -> bool:
        return self.only is None or str(pk) == str(self.only)

    def named(self, named: list[events.Named]) -> list[str]:
        """The names of those the reader may see: with `only`, theirs; never one kept from them (a secret NPC)."""
        return [
            n.name
            for n in named
            if self.mine(n.character) and not (str(n.character).isdigit() and int(n.character) in self.unseen)
        ]

    def patient(self) -> str:
        return self.name(self.event.characters[0])

    def healer(self, payload: events.TreatWounds | events.TreatIllness) -> str:
        """Who treated: by name, unless the reader may not see that character (a secret NPC): then "Alguien"."""
        if not str(payload.healer).isdigit() or int(payload.healer) in self.unseen:
            return _("Alguien")
        return payload.healer_name

    def rolls(self, rolls: list[events.Roll], everyone: bool = False) -> list[str]:
        return [roll_line(roll) for roll in rolls if everyone or self.mine(roll.character)]

    def skipped(self, skipped: list[events.CharacterRef]) -> list[str]:
        """The dead members of a group, who make no check (docs/rules.md §7.8)."""
        return [_("%(name)s ha muerto: sin tirada") % {"name": self.name(pk)} for pk in skipped if self.mine(pk)]

    def answered(self, call: events.Answer | None) -> list[str]:
        """Who rolled a check the GM called (rules.actions.checks): the player on their phone, or the GM for them."""
        if call is None or not call.by:
            return []
        if call.typed:
            return [_("Tirada pedida: %(who)s anota el dado") % {"who": call.by}]
        return [_("Tirada pedida: %(who)s deja tirar al servidor") % {"who": call.by}]

    def for_whom(self) -> list[str]:
        names = [self.name(pk) for pk in self.event.characters if self.mine(pk)]
        return [_("Para %(names)s") % {"names": ", ".join(names)}] if names else []

    def deaths(self) -> list[str]:
        """Who died in this event, and when in campaign time (inside an advance, the very second)."""
        lines = []
        for pk, after in self.event.after.items():
            before = self.event.before.get(pk, {})
            if self.mine(pk) and after.get("died_at") is not None and before.get("died_at") is None:
                when = format_clock(after["died_at"])
                lines.append(_("%(name)s muere (%(when)s)") % {"name": self.name(pk), "when": when})
        return lines


def penalty_label(label: str) -> str:
    if label == "pg":
        return _("PG bajos")
    return disease_name(label.removeprefix("illness:"))


class Explained(str):
    """A line of the log that a line of the rules page explains (a roll): `why` is its address there."""

    why: str = ""


def explained_line(text: str, anchor: str) -> Explained:
    line = Explained(text)
    line.why = explained.why(anchor)
    return line


def penalty_terms(parts: Iterable[tuple[str, int] | list[Any]]) -> list[str]:
    """A check's penalties as its sum writes them: "− 4 (PG bajos)", "− 2 (Peste)"."""
    return [f"− {-value} ({penalty_label(label)})" for label, value in parts if value]


def roll_line(roll: events.Roll) -> Explained:
    anchor = "illness-protection" if roll.protected else check_anchor(roll.check)
    return explained_line(roll_text(roll), anchor)


def roll_text(roll: events.Roll) -> str:
    check, base = CHECK_NAMES[roll.check]
    if roll.protected:
        return _("%(name)s — %(check)s: protegido hoy, sin tirada") % {"name": roll.name, "check": check}
    assert roll.total is not None  # every roll made has its total; only a protected one has none
    parts = [f"1d{roll.sides} ({roll.die})", f"+ {base} {roll.modifier}"]
    parts += penalty_terms(roll.penalties)
    result = _("éxito") if roll.success else _("fallo")
    return _("%(name)s — %(check)s: %(parts)s = %(total)s contra %(difficulty)s: %(result)s") % {
        "name": roll.name,
        "check": check,
        "parts": " ".join(parts),
        "total": minus(roll.total),
        "difficulty": roll.difficulty,
        "result": result,
    }


def entry_for(
    event: Event, names: dict[int, str], only: int | None = None, unseen: frozenset[int] = frozenset()
) -> Entry:
    """Describe one event; with `only`, just the lines about that character (a player's sheet). An entry that no
    action could have written (rules.events refuses it where it is read) is named by its kind alone, never a broken
    page."""
    try:
        payload = events.payload_of(event)
    except events.DamagedEntry as damaged:
        logger.warning("unreadable log entry: event %s (%s): %s", event.pk, event.action, damaged)
        title = _("%(action)s (registro importado ilegible)") % {"action": events.label_of(event.action)}
        return Entry(event, format_clock(event.clock_before), title, [], who_of(event))
    title, lines = WORDING[type(payload)](Story(event, payload, names, only, unseen), payload)
    return Entry(event, format_clock(event.clock_before), title, lines, who_of(event))


def who_of(event: Event) -> str:
    return who_acted(event.actor.username if event.actor is not None else None, event.actor_name)
