"""How an action answers the screen it came from: with the regions of that screen it touched, drawn as the screen's
own stream would draw them — which leaves that change out for this tab — and what the acting tab alone needs: the form
it came from closed, words for a screen reader, where the keyboard goes next.

From the same one read of the campaign's rows, the request draws its change for every other view this process's
streams show, as its tab promised before it acted (`Promises`): the listener (play.screens.streamed) then has nothing
to read or draw. Measured: with each drawing its own, click → last screen lost its goal (≤ 2× the stack floor) at 10
clients and at 100 campaigns × 6 (2.2 and 2.3×, bench/RESULTS.md). The listener draws a change the same way
(`state_of`, `draw_views`) for the views no request drew."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, InvalidStateError
from contextlib import suppress
from dataclasses import dataclass, replace
from functools import cached_property, wraps

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import get_script_prefix, set_script_prefix
from django.utils import translation
from django_htmx.http import reswap
from django_htmx.middleware import HtmxDetails

from campaigns import access
from campaigns.models import Campaign, Event
from play.live import streams
from play.live.messages import Ending
from play.screens.drawing import Drawing, Screen, View, changes, part
from play.screens.regions import site_of
from play.screens.snapshot import Snapshot, Touch, state_for, touch_of
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
    """An action view of a screen. Before it acts, its tab promises to draw its change for the views of the campaign
    this process's streams show (`Promises`: `drawn_here` keeps the promise; if it does not, it is released here and
    the listener draws); its 404 answers htmx saying what the account is at the campaign now (`not_found`)."""

    @wraps(view)
    def acting_view(request: HtmxHttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        campaign_id, tab = kwargs.get("campaign_id"), tab_of(request)
        promise = None
        if request.htmx and request.method == "POST" and isinstance(campaign_id, int):  # it acts: a form opened not
            # The pages' views among the hub's (the API's streams have theirs: play.api.stream draws them).
            views = {view for view in streams.hub.views_of(campaign_id, tab) if isinstance(view, Seen)}
            promise = promises.promise(campaign_id, tab, views)
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
    left it (the clock's form drawn fresh: play.screens.regions.clock_closed). Other forms left open stay as they
    are."""
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


def drawn_here(
    request: HtmxHttpRequest, campaign: Campaign, outcome: actions.Outcome, touch: Touch
) -> tuple[Drawing, str]:
    """The acting GM's table as the change left it, and what it touched of it as its stream would draw it (with the
    change drawn for this process's other screens too, as the tab promised: `drawn_for_tab`)."""
    promise = promises.of(campaign.pk, tab_of(request))
    views = set() if promise is None else promise.views
    state = state_of(campaign, touch, views, outcome.event, newest=True, gm=True)  # logged under the lock
    language = translation.get_language() or settings.LANGUAGE_CODE
    table = Seen(View(state.roster.table, Screen.TABLE), site_of(request), language, get_script_prefix())
    drawn = drawn_for_tab(table, state, touch, promise, outcome.event)
    return Drawing(state, table.view, table.site, None, touch), drawn


# --- a change drawn once for every view of it -----------------------------------------------------------------------


@dataclass(frozen=True)
class Seen:
    """A view as one browser sees it: the site its links point to (invitations), the language it reads and the URL
    prefix the site is served under (every link drawn starts with it)."""

    view: View
    site: str
    language: str
    prefix: str = "/"

    def __hash__(self) -> int:
        return self.hashed

    @cached_property  # a change looks its views up by this for every stream: hashed once, not level by level
    def hashed(self) -> int:
        return hash((self.view, self.site, self.language, self.prefix))

    @property
    def campaign_id(self) -> int:
        return self.view.audience.campaign_id

    @property
    def user_id(self) -> int:
        return self.view.audience.user_id

    @property
    def kind(self) -> str:
        return str(self.view.screen)


def ending_of(roster: access.Roster, audience: access.Audience) -> Ending | None:
    """Whether an audience's screen ends, and why (None: it goes on). A screen is drawn for one role, the table for a
    GM, a page or a sheet for a player: once its person holds the other role, a fresh load draws another screen."""
    runs = roster.campaign.gm_id == audience.user_id or roster.is_co_gm(audience.user_id)
    if roster.still_sees(audience):
        return Ending.ROLE if runs and not audience.is_gm else None
    other = replace(audience, is_gm=not audience.is_gm)
    return Ending.ROLE if roster.still_sees(other) else Ending.GONE


def state_of(
    campaign: Campaign, touch: Touch, views: Iterable[Seen], event: Event | None, newest: bool, gm: bool = False
) -> Snapshot:
    """The rows these views (and a GM's screen, with `gm`) draw a change from, read in one round trip."""
    read, gm, pages = unread(campaign, touch, views, gm)
    return read.knowing(event, newest=newest).read_ahead(gm=gm, players=pages)


def unread(campaign: Campaign, touch: Touch, views: Iterable[Seen], gm: bool) -> tuple[Snapshot, bool, bool]:
    """The snapshot these views (and a GM's screen, with `gm`) draw a change from, its rows not yet read, and what
    it reads them for: a GM's screen, players' pages. A player's page draws all its companions when one is touched:
    then every card is read at once."""
    pages = any(seen.view.screen == Screen.PAGE for seen in views)
    gm = gm or any(seen.view.audience.is_gm for seen in views)
    return (Snapshot(campaign) if pages else state_for(campaign, touch)), gm, pages


def draw_views(views: Iterable[Seen], touch: Touch, state: Snapshot | None) -> dict[Seen, str | None]:
    """Each view's drawing of one change (`draw`), each drawn once for every GM. The thread's URL prefix is put back
    after."""
    prefix, drawn = get_script_prefix(), dict[Seen, str | None]()
    try:
        return {seen: drawn_once(seen, touch, state, drawn) for seen in views}
    finally:
        set_script_prefix(prefix)


def draw(seen: Seen, touch: Touch, state: Snapshot | None) -> str | None:
    """The regions of one view a change touched (with EVERYTHING, the whole screen), as a fresh load draws them; ""
    when it touched none; None when the audience may no longer watch the campaign (or it is gone: no `state`)."""
    set_script_prefix(seen.prefix)  # this thread's links, as the page's were drawn
    with translation.override(seen.language):
        if state is None or not state.roster.still_sees(seen.view.audience):
            return None
        return changes(Drawing(state, seen.view, seen.site, None, touch))


def drawn_once(seen: Seen, touch: Touch, state: Snapshot | None, drawn: dict[Seen, str | None]) -> str | None:
    """A view's drawing, made once for every GM (the owner and each co-GM see the same table and sheets): each GM's
    own right to watch is asked first, so a removed co-GM's streams end while the others' go on; and a screen drawn
    for the role its person no longer holds ends saying so (Ending.ROLE: a player's page once they are co-GM)."""
    if state is None:
        return None
    ended = ending_of(state.roster, seen.view.audience)
    if ended is not None:
        return None if ended == Ending.GONE else ended
    if seen.view.audience.is_gm:
        seen = replace(seen, view=replace(seen.view, audience=state.roster.table))
    if seen not in drawn:
        drawn[seen] = draw(seen, touch, state)
    return drawn[seen]


# --- a change drawn by the request that made it ----------------------------------------------------------------------

type Drawn = dict[Seen, str | None]
PROMISE_SECONDS = 5.0  # a request's drawing not kept by then (it cannot be: a hung request) is made by the listener


@dataclass(frozen=True)
class Promise:
    """A request's promise to draw its change for these `views` (those this process's streams showed of the campaign
    when it acted; a stream opened since is drawn by the listener): `drawn` holds the event it logged and what it drew
    (`keep`)."""

    views: set[Seen]
    drawn: Future[tuple[int | None, Drawn]]


class Promises:
    """A change drawn for this process's streams by the request that made it (`drawn_here`), which reads the
    campaign's rows for its own answer anyway: the listener, which hears the change at the commit, waits for that
    drawing (play.screens.streamed.promised) instead of reading and drawing the change a second time. A tab's request
    promises before it acts (`answers_in_place`), under the campaign and the tab its change's notification names; it
    keeps the promise with the event it logged and what it drew, or releases it: the listener then draws the change
    itself, as it does for a change drawn for another event (the same tab acting twice at once, or two requests that
    name no tab: a client without static/js/screen.js) and for one no request of this process made."""

    KEPT_SECONDS = 30.0  # a promise is let go after this (its request and its listener have it: neither waits)

    def __init__(self) -> None:
        self.made: dict[tuple[int, str], tuple[float, Promise]] = {}  # oldest first
        self.lock = threading.Lock()  # for those who make promises; `of` only looks (a dict's get is atomic)

    def promise(self, campaign_id: int, tab: str, views: set[Seen]) -> Promise:
        """Made on the request's thread before it acts. The promises older than KEPT_SECONDS are let go first, from
        the oldest on: as many steps as promises let go, however many are kept."""
        now = time.monotonic()
        promise = Promise(views, Future())
        with self.lock:
            while self.made:
                oldest = next(iter(self.made))
                if now - self.made[oldest][0] <= self.KEPT_SECONDS:
                    break
                del self.made[oldest]
            self.made.pop((campaign_id, tab), None)
            self.made[(campaign_id, tab)] = (now, promise)
        return promise

    def of(self, campaign_id: int, tab: str) -> Promise | None:
        """What this tab's latest request in this process promised of a change of this campaign, if any ("": a
        request that names no tab, or a change that names none)."""
        made = self.made.get((campaign_id, tab))
        return None if made is None else made[1]


promises = Promises()


def drawn_for_tab(table: Seen, state: Snapshot, touch: Touch, promise: Promise | None, event: Event | None) -> str:
    """What the change touched of the acting tab's screen (`table`), as its stream would draw it; from the same rows,
    the change drawn for every other view it promised to draw for (`Promises`): the listener then has nothing to read
    or draw when it hears of it."""
    views = set() if promise is None else promise.views
    drawn = draw_views({*views, table}, touch, state)
    if promise is not None:
        keep(promise, None if event is None else event.pk, {view: drawn[view] for view in views})
    return drawn[table] or ""


def keep(promise: Promise, event: int | None, drawn: Drawn) -> None:
    """Keep a promise: the event logged and its drawings (no event: released, the listener draws). A promise kept or
    released already stays as it is."""
    with suppress(InvalidStateError):
        promise.drawn.set_result((event, drawn))
