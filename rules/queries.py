"""Reads that several pages share: what an advance would do (its preview), the event an undo would undo now, the
checks still waiting for a die, and the campaigns whose tick of time between sessions is due. Nothing here writes;
every change is in rules.actions."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Exists, OuterRef

from campaigns.models import Campaign, Event, GameSession
from characters.models import Character
from config.compiled import Compiled
from rules import engine
from rules.actions.core import locked
from rules.actions.health import checked_duration, resting_set
from rules.events import EventKind
from rules.models import CalledCheck, CallStatus


@dataclass(frozen=True)
class CharacterPreview:
    """One character in an advance's preview: its state now, and what the advance will do to it."""

    character: Character
    before: engine.Health
    preview: engine.Preview
    resting: bool


@dataclass(frozen=True)
class AdvancePreview:
    """What `rules.actions.advance_clock` with the same arguments would do, at campaign `version`."""

    seconds: int
    clock: int
    version: int
    characters: list[CharacterPreview]


def preview_advance(
    campaign: Campaign | int,
    seconds: int,
    *,
    resting: Iterable[Character | int] | None = None,
    not_resting: Iterable[Character | int] | None = None,
) -> AdvancePreview:
    """The advance's outcome for every character, by the same engine call `advance_clock` makes (engine.preview
    returns engine.advance's state, and when each thing happens inside it)."""
    checked_duration(seconds)
    with transaction.atomic():
        # A consistent read, released before the (slower) preview; who may see it is the page's to say.
        campaign, everyone = locked(campaign, None, None)
    resting_ids = resting_set(everyone, resting, not_resting)
    characters = [
        CharacterPreview(
            loaded.character,
            loaded.health,
            engine.preview(loaded.health, seconds, resting=loaded.character.pk in resting_ids),
            loaded.character.pk in resting_ids,
        )
        for loaded in everyone
    ]
    return AdvancePreview(seconds, campaign.clock, campaign.version, characters)


def latest_undoable(campaign: Campaign) -> Event | None:
    """The event an undo would undo now: the latest one not undone (an undo itself is never undone), whole: the undo
    button names it in the log's words, which read its payload and its states (one query, not one per field)."""
    return campaign.events.filter(undone=False).exclude(action=EventKind.UNDO).order_by("-id").first()


PENDING = Compiled(
    lambda campaign: (
        CalledCheck.objects.filter(campaign_id=campaign, status=CallStatus.PENDING)
        .select_related("character", "disease")
        .order_by("id")
    )
)


def pending_checks(campaign: Campaign | int, characters: Iterable[int] | None = None) -> list[CalledCheck]:
    """The checks still waiting for a die, oldest first, with their characters and diseases (None: everyone's)."""
    campaign_id = campaign if isinstance(campaign, int) else campaign.pk
    if characters is None:
        return PENDING.list(campaign=campaign_id)
    rows = CalledCheck.objects.filter(campaign_id=campaign_id, status=CallStatus.PENDING)
    rows = rows.filter(character_id__in=characters)  # a list, or a query of ids (a subquery: no query of its own)
    return list(rows.select_related("character", "disease").order_by("id"))


def ticks_due(now: datetime) -> list[int]:
    """The campaigns whose time runs between sessions and whose next tick has fallen by `now`, but those playing a game
    session (no tick while one is open): by the partial index campaign_ticks_due."""
    playing = GameSession.objects.filter(campaign=OuterRef("pk"), ended=None)
    due = Campaign.objects.filter(~Exists(playing), runs=True, run_next__lte=now)
    return list(due.order_by("run_next", "id").values_list("id", flat=True))
