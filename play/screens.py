"""What each screen shows, built in one place for the page itself, for the htmx answers and for the live streams:
the GM's table, a player's page and a character's sheet. Each costs a constant number of queries."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.urls import reverse

from campaigns.access import Audience, characters_seen_by, companions_seen_by, seen_as, table_of
from campaigns.models import Campaign, Event, PartyView
from characters.models import Character
from play.cards import Card, cards_for
from play.checks import open_calls, pending_lines
from play.forms import AdvanceForm, PartyViewForm
from play.log import LOG_LENGTH, SHEET_LOG_LENGTH, Entry, entry_for, names_in, next_page, sheet_log, table_log
from play.party import companion
from play.timeline import timeline_for
from rules.actions import latest_undoable


def table_context(campaign: Campaign) -> dict[str, Any]:
    """Everything the GM's table shows."""
    cards = cards_for(campaign, characters_seen_by(table_of(campaign)).select_related("player"), invitations=True)
    return {
        "campaign": campaign,
        "cards": cards,
        **log_context(campaign),
        "clock_form": clock_form(campaign, [card.character for card in cards]),
        "calls": open_calls(campaign),
        "party_view_form": PartyViewForm(campaign=campaign),
    }


def changes_context(campaign: Campaign, changed: Iterable[int]) -> dict[str, Any]:
    """What one action changed on the GM's table, for the answer to their click (htmx out-of-band swaps): the cards of
    the characters it touched, the clock, who rests, the undo button and the log — not the whole table."""
    seen = characters_seen_by(table_of(campaign))
    cards = cards_for(campaign, seen.filter(pk__in=list(changed)).select_related("player"), invitations=True)
    return {
        "campaign": campaign,
        "cards": cards,
        **log_context(campaign),
        "clock_form": clock_form(campaign, list(seen)),
        "calls": open_calls(campaign),
        "party_view_form": PartyViewForm(campaign=campaign),
    }


def clock_form(campaign: Campaign, in_play: list[Character]) -> AdvanceForm:
    """The clock's form as a fresh load draws it: everyone in play rests unless the GM unticks them."""
    everyone = [character.pk for character in in_play]
    form = AdvanceForm(campaign=campaign, auto_id="advance-%s", initial={"resting": everyone})
    form.in_play = in_play
    return form


def log_context(campaign: Campaign) -> dict[str, Any]:
    """The GM's log and the undo button, which names the one event it will undo."""
    undoable = latest_undoable(campaign)
    names = names_in(campaign)
    log = table_log(campaign, names)
    return {
        "campaign": campaign,
        **log_page(log, LOG_LENGTH, reverse("campaign_log", args=[campaign.pk])),
        "undo": None if undoable is None else undo_entry(undoable, log, names),
    }


def undo_entry(undoable: Event, log: list[Entry], names: dict[int, str]) -> Entry:
    """The entry the undo button names: as the log words it, mostly already worded on the log's page."""
    return next((entry for entry in log if entry.event.pk == undoable.pk), None) or entry_for(undoable, names)


def log_page(entries: list[Entry], length: int, url: str) -> dict[str, Any]:
    """A page of a log and, when it was full, the address of the one before it ("Sucesos anteriores")."""
    older = next_page(entries, length)
    return {"log": entries, "log_more": None if older is None else f"{url}?before={older}"}


def player_context(campaign: Campaign, audience: Audience) -> dict[str, Any]:
    """A player's page: their own characters' cards, read only, and their companions."""
    cards = cards_for(campaign, characters_seen_by(audience).select_related("player"))
    context = {"campaign": campaign, "cards": cards, "read_only": True, **party_context(campaign, audience)}
    return {**context, **my_checks(campaign, audience)}


def my_checks(campaign: Campaign, audience: Audience) -> dict[str, Any]:
    """The checks a player's characters owe, on their page (components/my_checks.html)."""
    own = characters_seen_by(audience).values_list("pk", flat=True)
    return {"my_checks": pending_lines(campaign, own), "where": "page"}


def party_context(campaign: Campaign, audience: Audience) -> dict[str, Any]:
    """A player's companions (components/party.html), each as the party view shows it: for the page and its stream.
    `campaign` must be fresh: its party view decides."""
    cards = cards_for(campaign, companions_seen_by(audience).select_related("player"))
    views = [(card, seen_as(card.character, campaign)) for card in cards]
    companions = [
        companion(card.character, card.health, view, card.band) for card, view in views if view != PartyView.HIDDEN
    ]
    return {"companions": companions}


def sheet_context(campaign: Campaign, card: Card, unseen: frozenset[int] = frozenset()) -> dict[str, Any]:
    """A character's sheet: its card in full and the latest events about it, for a reader who may not see the
    characters `unseen` (access.kept_from)."""
    character: Character = card.character
    return {
        "campaign": campaign,
        "card": card,
        "health": card.health,
        "character": character,
        "timeline": timeline_for(campaign, character),
        "my_checks": pending_lines(campaign, [character.pk]),
        "where": "sheet",
        **log_page(
            sheet_log(campaign, character, unseen=unseen),
            SHEET_LOG_LENGTH,
            reverse("character_log", args=[campaign.pk, character.pk]),
        ),
        "read_only": True,
    }
