"""The regions of each screen — the GM's table, a player's page, a character's sheet — and what each is drawn from:
the one list that the first load of a page, the answer to an action and the live stream all draw from (`SCREENS`,
registered with play.screens.drawing by play.apps); a whole screen kept (`whole_screen`), and what a page and an answer
draw besides their regions (the clock's form, the party view's control)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from campaigns.access import Right, seen_as, table_of
from campaigns.models import Campaign, PartyView
from characters.models import Character
from play.forms.advance import AdvanceForm
from play.forms.party import PartyViewForm
from play.log.pages import LOG_LENGTH, SHEET_LOG_LENGTH
from play.party import companion
from play.screens.cards import Card, Shown, shown_to, whole
from play.screens.drawing import Drawing, Region, Screen, View, element, fragment, part
from play.screens.game_sessions import game_session, shared_recaps
from play.screens.kept import row_state, screens
from play.screens.log import log, sheet_log_entries, undo_title
from play.screens.running_time import control, control_touched, next_tick, next_tick_touched
from play.screens.snapshot import EVERYTHING, Snapshot, Touch
from play.screens.timeline import timeline_for
from rules.actions.core import right_to_undo


def clock(drawing: Drawing) -> dict[str, Any]:
    return {}  # the campaign is all it shows (and the campaign's name)


def cards(drawing: Drawing) -> dict[str, Any]:
    """Every card in its shell (components/card.html#card), each kept whole while its card is unchanged."""
    return {"shells": [drawing.render_card("components/card.html#card", card) for card in drawing.cards]}


def calls(drawing: Drawing) -> dict[str, Any]:
    return {"calls": drawing.state.calls}


def resting(drawing: Drawing) -> dict[str, Any]:
    return {"rows": clock_form(drawing.campaign, drawing.seen).resting_rows}


def party_view(drawing: Drawing) -> dict[str, Any]:
    return {"form": PartyViewForm(campaign=drawing.campaign)}


def undo(drawing: Drawing) -> dict[str, Any]:
    """The undo button: what it would undo, in the log's words (kept with the log's entries), and whether only the
    owner may undo it (drawn once for every GM: a co-GM's table says why instead, templates/campaign.html). Kept
    under these two: the button is the same for the same event and right."""
    pk = drawing.state.undoable
    if pk is None:
        return {"undo": None}
    owner_only = right_to_undo(drawing.state.heads_of([pk])[pk].action) == Right.OWNER
    return {"undo": undo_title(drawing.state, pk, drawing.state.names), "owner_only": owner_only}


def my_checks(drawing: Drawing) -> dict[str, Any]:
    """The checks a player's characters owe, on their page."""
    return {"my_checks": drawing.state.pending_lines(c.pk for c in drawing.seen), "where": "page"}


def companions(drawing: Drawing) -> list[Character]:
    return drawing.state.roster.companions_of(drawing.audience)


def party(drawing: Drawing) -> dict[str, Any]:
    """A player's companions, each as the party view shows it (`campaign` is fresh: its party view decides): what
    they show and nothing else, so that the region is kept under them (a companion's PG moving under one word draws
    nothing again)."""
    views = [(card, seen_as(card.character, drawing.campaign)) for card in drawing.state.cards_of(companions(drawing))]
    return {
        "companions": tuple(
            companion(card.character, card.health, view, card.band) for card, view in views if view != PartyView.HIDDEN
        )
    }


def party_touched(drawing: Drawing) -> bool:
    touch = drawing.touch
    if touch.everything or touch.roster or touch.campaign or touch.clock:
        return True
    return any(character.pk in touch.characters for character in companions(drawing))


def sheet(drawing: Drawing) -> dict[str, Any]:
    """A character's sheet, for a reader who may not see the characters `kept` (access.kept_from); a character
    removed from the campaign or handed to another player is said to be gone."""
    character = drawing.sheet
    if character is None:
        # Named only to whom it was theirs to see: the GM, or its player (a character handed to another is not).
        return {"gone": drawing.state.roster.sheet(drawing.audience, drawing.view.character), "unseen": True}
    card = drawing.state.card(character.pk)
    return {
        "card": card,
        # The card's fragments (play.jinja), in full: how each wound heals and each illness is cured.
        "pg": fragment("pg.jinja", {"card": card}),
        "wounds": fragment("wounds.jinja", {"card": card, "detailed": True}) if card.wounds else "",
        "illnesses": fragment("illnesses.jinja", {"card": card, "detailed": True}) if card.sick else "",
        "health": card.health,
        "character": character,
        "timeline": timeline_for(drawing.campaign, character),
        "my_checks": drawing.state.pending_lines([character.pk]),
        "where": "sheet",
        "is_gm": drawing.audience.is_gm,
    }


def sheet_touched(drawing: Drawing) -> bool:
    touch = drawing.touch
    return touch.roster or touch.campaign or touch.character(drawing.view.character or 0)


def my_checks_touched(drawing: Drawing) -> bool:
    """A player's checks: when a call about their characters changed, or the state a pending one's formula says."""
    own = [character.pk for character in drawing.seen if drawing.touch.character(character.pk)]
    return drawing.touch.roster or bool(own) and (drawing.touch.calls or drawing.state.owes_check(own))


def always(drawing: Drawing) -> bool:
    return True


NAME = Region("campaign-name", "components/campaign_name.html", clock, lambda d: d.touch.campaign, tag="span")
CLOCK = Region("clock", "components/clock.html", clock, lambda d: d.touch.clock, tag="span", attrs={"class": "clock"})
CARDS = Region(
    "cards",
    "components/cards.html",
    cards,
    # The clock moved: every card changes (healing times count from now), so the whole list goes, keyed — and a tab
    # that missed a character (its stream was down) gets its card too.
    lambda d: d.touch.roster or d.touch.clock,
    tag="ul",
    attrs={"class": "cards"},
    how="keyed",
    holds_cards=True,
)


def card_region(
    name: str, template: str, css: str, drawn_from: Callable[[Card], object] = whole, shown: Shown = shown_to
) -> Region:
    """A region every card has (its id ends in the character's: "card-12"), drawn from the card alone (or from what
    `drawn_from` says of it: a change that leaves that alike finds the region kept)."""
    attrs = {"class": css}
    return Region(name, template, lambda d: {}, always, attrs=attrs, per_card=True, drawn_from=drawn_from, shown=shown)


# A card's state is drawn for every screen a blow reaches: by Jinja2 (play.jinja), in half the time.
CARD = card_region("card", "card_state.jinja", "card-state", shown=Card.shown_state)
# When the next tick of time between sessions falls (play.screens.running_time): the table's and a player's page.
NEXT_TICK = Region(
    "running-time", "components/running_time.html", next_tick, next_tick_touched, tag="p", attrs={"class": "next-tick"}
)
CARD_ACTIONS = card_region(
    "card-actions", "components/card.html#actions", "card-actions", lambda card: card.actions_from
)

SCREENS: dict[Screen, list[Region]] = {
    Screen.TABLE: [
        NAME,
        CLOCK,
        Region("resting", "components/resting.html", resting, lambda d: d.touch.roster, kept=True),
        Region("party-view", "components/party_view_control.html", party_view, lambda d: d.touch.campaign),
        NEXT_TICK,
        Region("running-time-control", "components/running_time_control.html", control, control_touched, kept=True),
        Region(
            "calls",
            "components/called_checks.html",
            calls,
            lambda d: (
                d.touch.calls or d.touch.roster or d.state.owes_check(c.pk for c in d.seen if d.touch.character(c.pk))
            ),
            tag="section",
            attrs={"class": "calls", "aria-labelledby": "calls-title"},
        ),
        CARDS,
        CARD,
        CARD_ACTIONS,
        Region("game-session", "components/game_session.html", game_session, lambda d: d.touch.sessions),
        Region("undo-button", "components/undo_button.html", undo, always, kept=True),
        Region(
            "log-entries",
            "log.jinja",
            log,
            always,
            tag="ol",
            attrs={"class": "entries", "data-length": str(LOG_LENGTH)},
            how="entries",
        ),
    ],
    Screen.PAGE: [
        NAME,
        CLOCK,
        NEXT_TICK,
        Region(
            "my-checks",
            "components/my_checks.html",
            my_checks,
            my_checks_touched,
            tag="section",
            attrs={"class": "my-checks", "data-clears": "check-said"},
        ),
        CARDS,
        CARD,
        Region("party", "party.jinja", party, party_touched, kept=True),
        Region("recaps", "components/recaps_shared.html", shared_recaps, lambda d: d.touch.sessions),
    ],
    Screen.SHEET: [
        NAME,
        CLOCK,
        Region(
            "sheet",
            "character_sheet.html#state",
            sheet,
            sheet_touched,
            attrs={"class": "sheet-state", "data-clears": "check-said"},
        ),
        Region(
            "sheet-log",
            "log.jinja",
            sheet_log_entries,
            lambda d: d.sheet is not None and d.touch.character(d.sheet.pk) or d.touch.roster,
            tag="ol",
            attrs={"class": "entries", "data-length": str(SHEET_LOG_LENGTH)},
            how="entries",
        ),
    ],
}


# The screens kept whole: every row they show is among those their first read digests (Snapshot.read_ahead) or
# changes only through an action, which bumps the campaign's version (a log entry, once logged, changes only by an
# undo). A sheet reads its character's log and timeline besides: it is drawn anew each time.
KEPT_WHOLE = (Screen.TABLE, Screen.PAGE)


def whole_screen(drawing: Drawing) -> dict[str, SafeString] | None:
    """Every region of the drawing's screen as a fresh load has it (each card's inside the list of cards), by name, kept
    (play.screens.kept.screens) under everything it is drawn from: who looks at which screen (every GM sees the same
    table), the site its links point to, the campaign's row and the digests of the rows of its first read (asked of
    PostgreSQL in one round trip, no rows: config.compiled.digests). A page, its reloads, the first message of the
    stream it opens and every other GM's table share one drawing, each with its own CSRF token put in
    (play.screens.drawing.fill); a change of anything it shows, by an action or behind the actions' back, is a new key.
    None for a screen not kept whole, for rows read already (a change's drawing) and for an audience that may no longer
    see the campaign."""
    view, state = drawing.view, drawing.state
    if view.screen not in KEPT_WHOLE or state.ahead:
        return None
    gm, players = view.screen == Screen.TABLE, not view.audience.is_gm
    where = (view.audience.campaign_id, view.audience.player_id, view.screen, drawing.site, row_state(drawing.campaign))
    found = screens.peek((*where, state.digest(gm, players)))
    if found is not None:
        return found
    state.read_ahead(gm, players, digested=True)  # the key is then the digests of exactly the rows drawn from
    if not state.roster.still_sees(view.audience):
        return None
    marked = replace(drawing, request=None, touch=EVERYTHING, marked=True)
    regions = [region for region in SCREENS[view.screen] if not region.per_card]
    return screens.put((*where, state.digested), {r.name: element(marked, r, r.draw(marked)) for r in regions})


def whole_drawing(campaign: Campaign, view: View, site: str, request: HttpRequest | None = None) -> Drawing:
    """A whole screen as a fresh load (a page, or a stream's first message) draws it: its regions kept whole, or
    else its rows read first, in one round trip."""
    drawing = Drawing(Snapshot(campaign), view, site, request)
    drawing.kept_whole = whole_screen(drawing)
    if drawing.kept_whole is None and not drawing.state.ahead:
        drawing.state.read_ahead(gm=view.screen == Screen.TABLE, players=not view.audience.is_gm)
    return drawing


# --- what a page needs besides its regions ---------------------------------------------------------------------------


def clock_form(campaign: Campaign, in_play: list[Character] | None = None) -> AdvanceForm:
    """The clock's form as a fresh load draws it: everyone in play rests unless the GM unticks them (its region of
    who rests, components/resting.html). Without `in_play` at hand, the form reads them only if its rows are asked
    for: a page's fresh form draws the region kept with its screen (`whole_screen`)."""
    form = AdvanceForm(campaign=campaign, auto_id="advance-%s")
    form.in_play = in_play
    return form


def clock_closed(request: HttpRequest, drawing: Drawing) -> list[str]:
    """After an advance from the clock's form: the form drawn fresh, the GM's way of working (preview first or not)
    kept, and its preview emptied (a `closing` of play.screens.answers.render_changes)."""
    form = clock_form(drawing.campaign, drawing.seen)
    form.initial["preview_first"] = bool(request.POST.get("preview_first"))
    clock = {"campaign": drawing.campaign, "form": form, "drawing": drawing}
    drawn = render_to_string("components/clock_form.html", clock, request)
    return [part("form-advance", drawn, "outer"), part("advance-preview")]


def party_view_closed(request: HttpRequest, drawing: Drawing) -> list[str]:
    """After the party view's control acted: the control drawn fresh, unless the change redrew its region."""
    if drawing.touch.campaign:
        return []
    control = {"campaign": drawing.campaign, "form": PartyViewForm(campaign=drawing.campaign)}
    return [part("party-view", render_to_string("components/party_view_control.html", control, request))]


def gm_drawing(
    campaign: Campaign, request: HttpRequest | None, touch: Touch = EVERYTHING, state: Snapshot | None = None
) -> Drawing:
    state = Snapshot(campaign) if state is None else state
    return Drawing(state, View(table_of(campaign), Screen.TABLE), site_of(request), request, touch)


def site_of(request: HttpRequest | None) -> str:
    return "" if request is None else f"{request.scheme}://{request.get_host()}"
