"""What a character card shows, worked out from the stored rows (read by play.screens.snapshot): PG, penalty band,
penalties in words, wounds by kind with their healing time, illnesses."""

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from django.db import DEFAULT_DB_ALIAS
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from campaigns.models import PartyView
from characters.models import Character
from play.party import view_words
from play.screens.kept import row_state, values_state
from rules import engine, explained, mapping
from rules.models import Illness, Wound, WoundKind
from rules.signs import signed

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


@dataclass
class WoundLine:
    kind: str
    label: "StrOrPromise"  # drawn in the view's language: a card's lines are worked out once for every view of a change
    outstanding: int
    healing_time: int | None  # campaign seconds until healed; None: waits for a cure, or the character is dead
    treated: bool
    rests: bool  # heals only while resting (docs/rules.md §6); drowning and gas heal by breathing
    dead: bool  # the dead heal nothing: no healing time at all

    @property
    def waits_for_cure(self) -> bool:
        return self.healing_time is None and not self.dead


@dataclass
class IllnessLine:
    row: Illness
    illness: engine.Illness


@dataclass
class Card:
    """A character's card, worked out from the rows it is drawn from when first asked."""

    character: Character  # with its player (select_related)
    wound_values: list[tuple[object, ...]]  # its wounds' stored fields (WOUND_FIELDS): rows only if worked out
    illness_rows: list[Illness]  # with their diseases (select_related)
    clock: int

    @cached_property
    def wound_rows(self) -> list[Wound]:
        return [Wound.from_db(DEFAULT_DB_ALIAS, WOUND_FIELDS, values) for values in self.wound_values]

    @cached_property
    def health(self) -> engine.Health:
        return mapping.health_of(self.character, self.wound_rows, self.illness_rows, self.clock)

    @cached_property
    def band(self) -> str:
        return band_of(self.health)

    @property
    def penalty_text(self) -> list[str]:
        """In the language it is drawn in (not kept: one card serves every view of a change, in their languages)."""
        return penalty_words(self.health)

    @cached_property
    def wounds(self) -> list[WoundLine]:
        return wound_lines(self.health)

    @cached_property
    def illnesses(self) -> list[IllnessLine]:
        rows = zip(self.illness_rows, self.health.illnesses, strict=True)
        return [IllnessLine(row, illness) for row, illness in rows]

    @cached_property
    def drawn_from(self) -> tuple[object, ...]:
        """Everything the card is worked out from: every stored field of its character, its player, its wounds, its
        illnesses and their diseases, and the campaign clock. Two cards drawn from equal values show the same thing."""
        player = self.character.player if self.character.player_id is not None else None
        return (
            self.clock,
            row_state(self.character),
            row_state(player),
            tuple(values_state(values) for values in self.wound_values),
            tuple((row_state(row), row_state(row.disease)) for row in self.illness_rows),
        )

    @property
    def actions_from(self) -> tuple[object, ...]:
        """What the card's actions are drawn from (components/card.html#actions): the links a character has (alive,
        ill, able to exert) and what they name, not its PG or wounds: a blow does not draw them again."""
        character = self.character
        return (character.pk, character.campaign_id, character.name, character.player_id, self.health.dead) + (
            bool(self.sick),
            self.can_exert,
        )

    @property
    def sick(self) -> list[IllnessLine]:
        return [line for line in self.illnesses if not line.illness.cured]

    @property
    def condition(self) -> str:
        """The key of the one word for its condition (rules.explained.CONDITIONS), as the players may read it."""
        return engine.condition_of(self.health)

    @property
    def condition_word(self) -> str:
        return str(explained.CONDITIONS[self.condition])

    @property
    def why_condition(self) -> str:
        return explained.why(explained.condition_anchor(self.condition))

    @property
    def counts(self) -> list[str]:
        """How many wounds (by kind, as its details list them) and illnesses it has, in words, for its row (in the
        language it is drawn in: not kept)."""
        wounds, sick = len(self.wounds), len(self.sick)
        words = [ngettext("%(n)s herida", "%(n)s heridas", wounds) % {"n": wounds}] if wounds else []
        return words + ([ngettext("%(n)s enfermedad", "%(n)s enfermedades", sick) % {"n": sick}] if sick else [])

    @property
    def hidden(self) -> bool:
        """Whether its own party view hides it from the other players (an NPC kept secret): a mark on its row."""
        return self.character.party_view == PartyView.HIDDEN

    @property
    def low_pg_penalty(self) -> bool:
        """Whether PG itself (not only an illness) is what penalises the rolls (docs/rules.md §4)."""
        low = engine.penalties(self.health.pg)
        return not self.health.dead and bool(low.physical or low.other)

    @property
    def why_penalty(self) -> str:
        """Where the rules page explains the card's penalties, for the "¿Por qué −4?" link: the row of the low-PG
        table that applies or, when only illnesses penalise, the line on illness penalties."""
        anchor = explained.penalty_anchor(self.health.pg) if self.low_pg_penalty else "illness-penalty"
        return explained.why(anchor)

    @property
    def worst_penalty(self) -> str:
        penalties = self.health.penalties  # low PG and every illness, added up
        return signed(min(penalties.physical, penalties.other))

    @property
    def can_exert(self) -> bool:
        """The exertion check exists only while 1 ≤ PG ≤ 4."""
        return not self.health.dead and self.health.penalties.exertion

    @property
    def exertion_warning(self) -> str:
        """docs/rules.md §4, with the engine's numbers: shown while every physical action calls for the check."""
        if self.health.dead or not self.health.penalties.exertion:
            return ""
        return _("¡Esfuerzo! Cada acción física pide 1d%(die)s + CON contra %(difficulty)s o pierde 1 PG.") % {
            "die": engine.EXERTION_DIE,
            "difficulty": engine.EXERTION_DIFFICULTY,
        }

    def shown_state(self, read_only: bool) -> object:
        """How a screen shows the card's state (components/card.html#card_state), for its drawing's key: the GM's
        table and the player's page alike, but for the party-view hint only the GM sees; one drawing serves both."""
        return not read_only and bool(self.party_view_hint)

    @property
    def party_view_hint(self) -> str:
        """For the GM: what the other players see of this character when its sheet says otherwise than the campaign
        (its own party view, a field of its row)."""
        view = self.character.party_view
        return _("Los demás jugadores ven: %(what)s") % {"what": view_words(view)} if view else ""


# What a card's drawing (play.screens) is kept under: everything it is drawn from, and how the screen shows it.
def whole(card: Card) -> object:
    return card.drawn_from


def shown_to(card: Card, read_only: bool) -> object:
    """As the GM's table or as a player's page."""
    return read_only


type Shown = Callable[[Card, bool], object]


def band_of(health: engine.Health) -> str:
    """The card's colour: the row of docs/rules.md §4's penalty table that applies."""
    if health.dead:
        return "dead"
    row = engine.penalty_row(health.pg)
    return "ok" if row is None else f"band-{row}"


def penalty_words(health: engine.Health) -> list[str]:
    if health.dead:
        return [_("Muerto.")]
    penalties = health.penalties
    words = []
    if penalties.physical == penalties.other and penalties.other:
        words.append(_("%(n)s a todas las tiradas") % {"n": signed(penalties.other)})
    else:
        if penalties.physical:
            words.append(_("%(n)s a tiradas físicas") % {"n": signed(penalties.physical)})
        if penalties.other:
            words.append(_("%(n)s a las demás tiradas") % {"n": signed(penalties.other)})
    return words


def wound_lines(health: engine.Health) -> list[WoundLine]:
    """The outstanding wounds by kind, in the engine's order of kinds, with their healing time."""
    outstanding: dict[str, int] = defaultdict(int)
    treated: dict[str, bool] = defaultdict(lambda: True)  # "treated" only when every outstanding wound of it is
    for wound in health.wounds:
        if wound.amount:
            outstanding[wound.kind] += wound.amount
            treated[wound.kind] &= wound.treated
    labels = dict(WoundKind.choices)
    return [
        WoundLine(
            kind,
            labels[kind],
            outstanding[kind],
            engine.healing_time(health, kind),
            treated[kind],
            rests=kind in engine.REST_ONLY,
            dead=health.dead,
        )
        for kind in engine.KINDS
        if outstanding[kind]
    ]


# The many rows of a table: read as plain values, made model rows only when a card is worked out.
WOUND_FIELDS = [field.attname for field in Wound._meta.concrete_fields]
WOUND_CHARACTER = WOUND_FIELDS.index("character_id")
