"""How an action answers the screen it came from: with the regions of that screen it touched (play.screens), drawn
as the screen's own stream would draw them — which leaves that change out for this tab — and what the acting tab alone
needs: the form it came from closed, words for a screen reader, where the keyboard goes next."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.urls import get_script_prefix
from django.utils import translation
from django.utils.html import format_html
from django_htmx.http import reswap
from django_htmx.middleware import HtmxDetails

from campaigns import access
from campaigns.access import table_of
from campaigns.models import Campaign
from play.forms.party import PartyViewForm
from play.screens.drawing import Drawing, Screen, View
from play.screens.regions import changes, clock_form, site_of
from play.screens.snapshot import Touch, touch_of
from play.screens.streamed import Seen, drawn_for_tab, keep, promises
from rules import actions, notify


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


PARTY_VIEW = "partyview"  # the GM's party view control, as the slot an answer closes and focuses


def focus_of(slot: str, outcome: actions.Outcome) -> str:
    """Where the keyboard goes after an action: the card acted on, the group buttons, or the duration field."""
    if slot == "advance":
        return "advance-duration"
    if slot == PARTY_VIEW:
        return "party_view"
    if slot.isdigit():
        return f"character-{slot}"
    if slot == "checks":
        return "calls"
    if slot == "undo":
        return "undo-submit"
    if len(outcome.characters) == 1:
        return f"character-{outcome.characters[0].pk}"
    return "party-damage"


def acting(request: HtmxHttpRequest) -> actions.Actor:
    """Who acts, and from which browser tab: an htmx request from a screen names its tab (X-Tab), which gets the
    change in this request's answer (render_changes), so the change's notification tells that tab's own stream to
    leave it out (each change reaches each screen once). A page without script is answered with a redirect: its
    screen's stream brings the change."""
    tab = tab_of(request)
    return actions.FromTab(request.user, tab) if tab else request.user


def tab_of(request: HtmxHttpRequest) -> str:
    """The browser tab an htmx request comes from (its X-Tab header), or "" (a page without script, a forged id)."""
    return notify.tab_or_nothing(request.headers.get("X-Tab")) if request.htmx else ""


def answers_in_place(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """An action view of a screen. Before it acts, its tab promises to draw its change for this process's streams
    (play.screens.streamed.Promises: `drawn_here` keeps the promise; if it does not, it is released here and the
    listener draws); its 404 answers htmx saying what the account is at the campaign now (`not_found`)."""

    @wraps(view)
    def acting_view(request: HtmxHttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        campaign_id, tab = kwargs.get("campaign_id"), tab_of(request)
        promise = None
        if (
            request.htmx and request.method == "POST" and isinstance(campaign_id, int)
        ):  # it acts: a form opened does not
            promise = promises.promise(campaign_id, tab)
        try:
            return view(request, *args, **kwargs)
        except Http404:
            if not request.htmx or not isinstance(campaign_id, int):
                raise
            return not_found(request, campaign_id)
        finally:
            if promise is not None:
                keep(promise, None, {})

    return acting_view


def standing(request: HttpRequest, campaign_id: int) -> str:
    """What this account is at a campaign now: "gm" (it runs it), "player" (it watches its page) or "none"."""
    campaign = access.CAMPAIGN_SEEN.first(user=request.user.pk, campaign=campaign_id)
    if campaign is None or not request.user.is_authenticated:
        return "none"
    audience = access.audience_of(request.user, campaign)
    if not access.roster_of(campaign).still_sees(audience):
        return "none"
    return "gm" if audience.is_gm else "player"


def not_found(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """An action's 404 from a screen, saying what the account is at the campaign now (X-Standing): a screen drawn for
    a role it no longer holds (a removed co-GM's table) tells why it was refused (static/js/screen.js), not that
    something was removed in another tab."""
    return HttpResponse(status=404, headers={"X-Standing": standing(request, campaign_id)})


def in_place(drawing: Drawing | str, parts: list[str], focus: str) -> HttpResponse:
    """The answer to an action from a screen: the regions of that screen it touched, drawn as its stream would draw
    them (or already drawn so), and what else the acting tab needs (the form it came from closed, words for a screen
    reader); static/js/screen.js puts each in place and moves the focus to `focus` (unless the person has typed on
    meanwhile)."""
    drawn = drawing if isinstance(drawing, str) else changes(drawing)
    response = HttpResponse(drawn + "".join(parts))
    response["X-Regions"] = "1"
    response["X-Focus"] = focus
    return reswap(response, "none")


def part(element_id: str, html: str = "", how: str = "inner") -> str:
    """Something for the acting tab only, put in place like a region: what is inside the element `element_id`."""
    return format_html('<div id="{}" data-how="{}">{}</div>', element_id, how, html)


def announcement(outcome: actions.Outcome) -> str:
    """What a screen reader says after an action: each affected character's PG."""
    return "; ".join(f"{c.name}: {c.pg}/{c.max_pg} PG" for c in outcome.characters)


def touched_by(outcome: actions.Outcome) -> Touch:
    return Touch() if outcome.event is None else touch_of(outcome.event)


type Closing = Callable[[Drawing], list[str]]


def render_changes(
    request: HtmxHttpRequest,
    campaign: Campaign,
    outcome: actions.Outcome,
    closed_slot: str,
    announce: str = "",
    focus: str = "",
    said: str = "",
    closing: Closing | None = None,
) -> HttpResponse:
    """The answer to an action on the GM's table: what it changed (the cards it touched — all of them when the clock
    moved, since healing times count from now — the clock, who rests, the undo button, the log entry…) and the form
    it came from closed: a card's or the party's slot emptied, or what `closing` draws from the table as the change
    left it (the clock's form drawn fresh: `clock_closed`). Other forms left open stay as they are."""
    if outcome.event is not None and outcome.event.campaign_id == campaign.pk:
        campaign = outcome.event.campaign  # the row as the action left it, read under its lock: no query again
    else:
        campaign.refresh_from_db()
    touch = touched_by(outcome)
    drawing, drawn = drawn_here(request, campaign, outcome, touch)
    parts = [part("announce", announce or announcement(outcome)), part("said", said)]
    if closing is not None:
        parts += closing(drawing)
    elif closed_slot == "party" or closed_slot.isdigit():
        parts.append(part(f"slot-{closed_slot}"))
    return in_place(drawn, parts, focus or focus_of(closed_slot, outcome))


def clock_closed(request: HtmxHttpRequest, drawing: Drawing) -> list[str]:
    """After an advance from the clock's form: the form drawn fresh, the GM's way of working (preview first or not)
    kept, and its preview emptied."""
    form = clock_form(drawing.campaign, drawing.seen)
    form.initial["preview_first"] = bool(request.POST.get("preview_first"))
    clock = {"campaign": drawing.campaign, "form": form, "drawing": drawing}
    drawn = render_to_string("components/clock_form.html", clock, request)
    return [part("form-advance", drawn, "outer"), part("advance-preview")]


def party_view_closed(request: HtmxHttpRequest, drawing: Drawing) -> list[str]:
    """After the party view's control acted: the control drawn fresh, unless the change redrew its region."""
    if drawing.touch.campaign:
        return []
    control = {"campaign": drawing.campaign, "form": PartyViewForm(campaign=drawing.campaign)}
    return [part("party-view", render_to_string("components/party_view_control.html", control, request))]


def drawn_here(
    request: HtmxHttpRequest, campaign: Campaign, outcome: actions.Outcome, touch: Touch
) -> tuple[Drawing, str]:
    """The acting GM's table as the change left it, and what it touched of it as its stream would draw it (with the
    change drawn for this process's other screens too, as the tab promised: play.screens.streamed.drawn_for_tab)."""
    table = View(table_of(campaign), Screen.TABLE)
    seen = Seen(table, site_of(request), translation.get_language() or settings.LANGUAGE_CODE, get_script_prefix())
    state, drawn = drawn_for_tab(campaign, touch, outcome.event, seen, tab_of(request))
    return Drawing(state, table, seen.site, None, touch), drawn
