"""Pages of the log: which events a page holds (the GM's log, a sheet's, a game session's), in words (play.log.story),
and where the page before it starts ("Sucesos anteriores"). A page is all any screen reads: older pages come on
demand."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import QuerySet

from campaigns.models import Campaign, Event, GameSession
from characters.models import Character
from play.log.story import Entry, entry_for

LOG_LENGTH = 40  # entries on the GM's table
SHEET_LOG_LENGTH = 15  # entries on a character's sheet


def entries_for(
    events: Iterable[Event], names: dict[int, str], only: int | None = None, unseen: frozenset[int] = frozenset()
) -> list[Entry]:
    """The entries of these events, in their order."""
    return [entry_for(event, names, only, unseen) for event in events]


def names_in(campaign: Campaign) -> dict[int, str]:
    """Every character's name, those removed from the campaign too: the log keeps telling their story."""
    return dict(Character.everyone.filter(campaign=campaign).values_list("pk", "name"))


def table_log(
    campaign: Campaign,
    names: dict[int, str] | None = None,
    before: int | None = None,
    session: GameSession | None = None,
) -> list[Entry]:
    """The GM's log: a page of the campaign's events, the latest ones or those `before` an event id (`names`: every
    character's, if already at hand), of one game `session` when given (from its start, up to its end or now). A
    page is all any screen renders: older pages come on demand."""
    names = names_in(campaign) if names is None else names
    chosen = campaign.events.all()
    if session is not None:
        chosen = chosen.filter(pk__gte=session.started_id)
        if session.ended_id is not None:
            chosen = chosen.filter(pk__lte=session.ended_id)
    return entries_for(older_than(chosen, before)[:LOG_LENGTH], names)


def sheet_log(
    campaign: Campaign, character: Character, before: int | None = None, unseen: frozenset[int] = frozenset()
) -> list[Entry]:
    """A sheet's log: a page of the events about one character, only the lines about them; a healer the reader may
    not see (`unseen`, access.kept_from) is not named."""
    events = older_than(campaign.events.filter(characters__contains=[character.pk]), before)[:SHEET_LOG_LENGTH]
    return entries_for(events, {character.pk: character.name}, only=character.pk, unseen=unseen)


def older_than(events: QuerySet[Event], before: int | None) -> QuerySet[Event]:
    return (events if before is None else events.filter(pk__lt=before)).select_related("actor").order_by("-id")


def next_page(entries: list[Entry], length: int) -> int | None:
    """Where the page after these entries starts (the id to ask for events before), or None when this page was not
    full: then there is nothing older."""
    return entries[-1].event.pk if len(entries) == length else None
