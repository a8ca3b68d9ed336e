"""What a character card shows, worked out once from the stored rows: PG, penalty band, penalties in words, wounds
by kind with their healing time, illnesses. A few queries for a whole campaign, whatever its size."""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.utils.translation import gettext as _

from campaigns.models import Campaign, Invitation
from characters.models import Character
from rules import engine, mapping
from rules.models import Illness, Wound, WoundKind


@dataclass
class WoundLine:
    kind: str
    label: str
    outstanding: int
    healing_time: int | None  # campaign seconds until healed; None: waits for a cure, or the character is dead
    treated: bool
    rests: bool  # heals only while resting (RULES.md section 6); drowning and gas heal by breathing
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
    character: Character
    health: engine.Health
    band: str
    penalty_text: list[str]
    wounds: list[WoundLine]
    illnesses: list[IllnessLine]
    invitation: Invitation | None = None  # its pending invitation link (the GM's table only)

    @property
    def sick(self) -> list[IllnessLine]:
        return [line for line in self.illnesses if not line.illness.cured]

    @property
    def low_pg_penalty(self) -> bool:
        """Whether PG itself (not only an illness) is what penalises the rolls (RULES.md section 4)."""
        low = engine.penalties(self.health.pg)
        return not self.health.dead and bool(low.physical or low.other)

    @property
    def can_exert(self) -> bool:
        """The exertion check exists only while 1 ≤ PG ≤ 4."""
        return not self.health.dead and self.health.penalties.exertion

    @property
    def exertion_warning(self) -> str:
        """RULES.md section 4, with the engine's numbers: shown while every physical action calls for the check."""
        if self.health.dead or not self.health.penalties.exertion:
            return ""
        return _("¡Esfuerzo! Cada acción física pide 1d%(die)s + CON contra %(difficulty)s o pierde 1 PG.") % {
            "die": engine.EXERTION_DIE,
            "difficulty": engine.EXERTION_DIFFICULTY,
        }


def band_of(health: engine.Health) -> str:
    """The card's colour: the row of RULES.md section 4's penalty table that applies."""
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


def signed(number: int) -> str:
    return f"−{-number}" if number < 0 else f"+{number}"


def card_for(character: Character, wounds: list[Wound], illnesses: list[Illness], clock: int) -> Card:
    health = mapping.health_of(character, wounds, illnesses, clock)
    outstanding: dict[str, int] = defaultdict(int)
    treated: dict[str, bool] = defaultdict(lambda: True)  # "treated" only when every outstanding wound of it is
    for wound in health.wounds:
        if wound.amount:
            outstanding[wound.kind] += wound.amount
            treated[wound.kind] &= wound.treated
    labels = dict(WoundKind.choices)
    wound_lines = [
        WoundLine(
            kind,
            str(labels[kind]),
            outstanding[kind],
            engine.healing_time(health, kind),
            treated[kind],
            rests=kind in engine.REST_ONLY,
            dead=health.dead,
        )
        for kind in engine.KINDS
        if outstanding[kind]
    ]
    illness_lines = [IllnessLine(row, illness) for row, illness in zip(illnesses, health.illnesses, strict=True)]
    return Card(character, health, band_of(health), penalty_words(health), wound_lines, illness_lines)


def cards_for(campaign: Campaign, characters: Iterable[Character], invitations: bool = False) -> list[Card]:
    """Cards for these characters of the campaign, in three queries whatever their number (four with the pending
    invitation links, which only the GM sees)."""
    characters = list(characters)
    ids = [c.pk for c in characters]
    pending: dict[int, Invitation] = {}
    if invitations:
        links = Invitation.objects.pending().filter(character_id__in=ids).order_by("id")
        pending = {link.character_id: link for link in links}
    wounds: dict[int, list[Wound]] = defaultdict(list)
    for wound in Wound.objects.filter(character_id__in=ids).order_by("id"):
        wounds[wound.character_id].append(wound)
    illnesses: dict[int, list[Illness]] = defaultdict(list)
    for illness in Illness.objects.filter(character_id__in=ids).select_related("disease").order_by("id"):
        illnesses[illness.character_id].append(illness)
    cards = [card_for(c, wounds[c.pk], illnesses[c.pk], campaign.clock) for c in characters]
    for card in cards:
        card.invitation = pending.get(card.character.pk)
    return cards
