"""Called checks as the screens show them (rules.actions.checks): on a player's phone, the check their character owes
("Tirada de resistencia (Peste): 1d12 + CON 8 − 2 (Gripe) contra 12") with its answer form; on the GM's table, each
call still waiting for someone, with what every character rolled so far, worded as the log words it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import groupby

from django.db.models import QuerySet, Subquery
from django.utils.translation import gettext as _

from campaigns.models import Campaign
from config.compiled import Compiled, Slot
from play.log import CHECK_NAMES, outcome_lines, penalty_terms
from rules import engine
from rules.actions.checks import die_sides
from rules.models import CalledCheck, CallStatus, CheckKind


@dataclass
class CheckLine:
    """One character's called check."""

    row: CalledCheck  # with its character and disease
    result: list[str] = field(default_factory=list)  # answered: the log's lines about this character
    penalties: tuple[tuple[str, int], ...] = ()  # pending: what the character's state takes off the die now

    @property
    def pk(self) -> int:
        return self.row.pk

    @property
    def pending(self) -> bool:
        return self.row.status == CallStatus.PENDING

    @property
    def cancelled(self) -> bool:
        return self.row.status == CallStatus.CANCELLED

    @property
    def sides(self) -> int:
        return die_sides(self.row.kind)

    @property
    def title(self) -> str:
        """ "Tirada de caída (10 m)", "Tirada de resistencia (Peste)", "Tirada de esfuerzo"."""
        label = str(CheckKind(self.row.kind).label)
        if self.row.kind == CheckKind.FALL:
            return _("%(check)s (%(height)s m)") % {"check": label, "height": self.row.height_m}
        if self.row.disease is not None:
            return _("%(check)s (%(disease)s)") % {"check": label, "disease": self.row.disease.shown_name}
        return label

    @property
    def formula(self) -> str:
        """What to roll and against what, as the log will write the roll: "1d12 + CON 8 − 4 (PG bajos) contra 12"
        (the penalties of the character's state now: the answer takes those of the moment it is rolled)."""
        character = self.row.character
        base = CHECK_NAMES[self.row.kind][1]
        value = character.jump if self.row.kind == CheckKind.FALL else character.constitution
        return _("1d%(sides)s + %(terms)s contra %(difficulty)s") % {
            "sides": self.sides,
            "terms": " ".join([f"{base} {value}", *penalty_terms(self.penalties)]),
            "difficulty": self.difficulty,
        }

    @property
    def difficulty(self) -> int:
        if self.row.kind == CheckKind.FALL:
            return self.row.difficulty or engine.DEFAULT_FALL_DIFFICULTY
        if self.row.kind == CheckKind.RESISTANCE and self.row.disease is not None:
            return engine.RESISTANCE_DIFFICULTY[self.row.disease.category]
        return engine.EXERTION_DIFFICULTY


@dataclass
class CallGroup:
    """One call of the GM (one or several characters), while any of them still has to roll."""

    lines: list[CheckLine]

    @property
    def title(self) -> str:
        first = self.lines[0]
        if first.row.kind == CheckKind.FALL:
            return _("%(check)s (%(height)s m, dificultad %(difficulty)s)") % {
                "check": CheckKind(first.row.kind).label,
                "height": first.row.height_m,
                "difficulty": first.difficulty,
            }
        return first.title

    @property
    def pending(self) -> list[int]:
        return [line.pk for line in self.lines if line.pending]


# A character's state by its id, when the caller has it at hand (play.screens.snapshot): no query for it then.
type Health = Callable[[int], engine.Health]


def with_penalties(lines: list[CheckLine], health: Health) -> list[CheckLine]:
    """Give each pending check the penalties its character's state puts on it now (engine.penalty_parts)."""
    pending = [line for line in lines if line.pending]
    for line in pending:
        line.penalties = engine.penalty_parts(health(line.row.character_id), engine.CHECK_ROLLS[line.row.kind])
    return lines


def calls_waiting(campaign: int | Slot) -> QuerySet[CalledCheck]:
    """Every check of the calls that still wait for someone, by call (open_calls)."""
    waiting = CalledCheck.objects.filter(campaign=campaign, status=CallStatus.PENDING).values("called_id")
    return (
        CalledCheck.objects.filter(campaign=campaign, called_id__in=Subquery(waiting))
        .select_related("character", "disease", "closed")
        .defer("closed__before", "closed__after")
        .order_by("called_id", "character__name", "id")
    )


CALLS = Compiled(calls_waiting)  # read by every GM's table (config.compiled)


def open_calls(campaign: Campaign, health: Health, rows: list[CalledCheck] | None = None) -> list[CallGroup]:
    """The GM's calls that still wait for someone, with every character's check in them: those already answered
    show their roll and what it did, as the log words it. One query, and three more while any check is pending (its
    character's penalties)."""
    rows = CALLS.list(campaign=campaign.pk) if rows is None else rows  # read already (play.screens.snapshot), or now
    groups = []
    for _called, in_call in groupby(rows, key=lambda row: row.called_id):
        lines = []
        for row in in_call:
            line = CheckLine(row)
            if row.status == CallStatus.ANSWERED and row.closed is not None:
                line.result = outcome_lines(row.closed, {row.character_id: row.character.name}, row.character_id)
            lines.append(line)
        groups.append(CallGroup(lines))
    with_penalties([line for group in groups for line in group.lines], health)
    return groups
