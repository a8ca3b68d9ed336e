"""A campaign's live stream, as Django lets it in: who asks, for which screen (the GM's table, a player's page, a
character's sheet), and may they; then the stream itself is play.live's (streams, connects)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.urls import get_script_prefix
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from campaigns import access
from campaigns.models import Campaign
from play.live import connects, streams
from play.live.connects import OPENED, Closable, ending, stream
from play.live.watchers import GONE, ROLE, SESSION, Watcher
from play.screens.answers import Seen
from play.screens.drawing import view_of
from rules import notify


def may_watch(campaign: Campaign, audience: access.Audience, sheet: int | None) -> bool:
    """Whether an audience may still watch its campaign, and open this sheet (None: its table or page)."""
    roster = access.roster_of(campaign)
    return roster.still_sees(audience) and (sheet is None or roster.sheet(audience, sheet) is not None)


def ended(why: str) -> HttpResponse:
    """A stream that ends at once, saying why: 200, so that the browser's EventSource reads it (an error status makes
    it retry for ever); its page then stops reconnecting."""
    return HttpResponse(ending(why), content_type="text/event-stream", headers={"Cache-Control": "no-cache"})


def too_many() -> HttpResponse:
    # Each stream holds memory and a share of every render: one account cannot hold hundreds (README "Limits").
    message = _("Demasiadas pantallas abiertas con esta cuenta: cierra alguna pestaña y recarga esta.")
    return HttpResponse(message, status=429, headers={"Retry-After": "30"}, content_type="text/plain")


@dataclass(frozen=True)
class Admitted:
    """Who a stream's connect found asking, and for which screen (campaign_stream)."""

    audience: access.Audience
    sheet: int | None
    expires: datetime
    version: int  # the campaign's, read with it


def admit(request: HttpRequest, campaign_id: int) -> Admitted | HttpResponse:
    """Whether this request may open the campaign's stream (as what audience, on which screen), or the answer that
    ends it at once: every read of the connect in one go, and the pooled connection given back before the stream
    starts (config.stream_gate lets only a few connects in at once, so a burst of them never holds the pool)."""
    user = request.user
    if not user.is_authenticated:
        return ended(SESSION)
    campaign = access.CAMPAIGN_SEEN.first(user=user.pk, campaign=campaign_id)
    if campaign is None:
        return ended(GONE)  # deleted, or never this user's: the same words, which tell nothing more
    if not isinstance(request, ASGIRequest):
        # Under WSGI (runserver, the test live server) a stream would hold a whole thread forever: no live
        # updates there, and 204 tells the browser's EventSource not to retry. `make run` and Docker serve ASGI.
        return HttpResponse(status=204)
    audience = access.audience_of(user, campaign)
    sheet = request.GET.get("sheet", "")
    character = int(sheet) if sheet.isascii() and sheet.isdigit() and len(sheet) < 19 else None
    drawn_for = request.GET.get("as")  # the role its page was drawn for (static/js/screen.js): "gm" or "player"
    if drawn_for in ("gm", "player") and (drawn_for == "gm") != audience.is_gm:
        # Made co-GM, or no longer one, since the page was drawn: a reload draws the screen of the new role.
        return ended(ROLE if may_watch(campaign, audience, character) else GONE)
    if not may_watch(campaign, audience, character):
        return ended(GONE)  # the same words for a member who plays no character here and a sheet not theirs
    admitted = Admitted(audience, character, request.session.get_expiry_date(), campaign.version)
    connections["default"].close()  # with the pool on, this gives the connection back: the stream may last hours
    return admitted


@login_not_required  # an anonymous stream is told its session ended, not sent to the login page
@require_GET
async def campaign_stream(request: HttpRequest, campaign_id: int) -> HttpResponseBase:
    """The campaign's live Server-Sent Events stream for one screen (the table, a player's page, or with `sheet` a
    character's sheet) of this user's audience. `tab` names the browser tab (its X-Tab header)."""
    key = request.session.session_key or ""
    async with connects.admission.one_at_a_time(key):  # one session's connects: a burst of them is admitted in turn
        holder = streams.hub.user_of_session(key)
        if holder is not None and streams.hub.streams_of(holder) >= settings.STREAMS_PER_USER:
            return too_many()  # so a burst beyond the cap costs no query
        mark = streams.hub.mark(campaign_id)
        admitted = await sync_to_async(admit)(request, campaign_id)
        if isinstance(admitted, HttpResponse):
            return admitted
        return opened(request, admitted, key, mark)


def opened(request: HttpRequest, admitted: Admitted, key: str, mark: tuple[int, int] | None) -> HttpResponseBase:
    """The stream of an admitted connect, counted and registered in one step (no await between): 50 connects at once
    by one account get the cap exactly. If no change of its campaign was heard since before `admit` read it (`mark`),
    its first screen is drawn at the version read then: a change that read missed reaches it as the next message."""
    audience = admitted.audience
    seen = Seen(
        view_of(audience, admitted.sheet),
        f"{request.scheme}://{request.get_host()}",
        translation.get_language() or settings.LANGUAGE_CODE,
        get_script_prefix(),
    )
    watcher = Watcher(
        seen, notify.tab_or_nothing(request.GET.get("tab")), notify.session_digest(key), admitted.expires, key
    )
    if streams.hub.streams_of(audience.user_id) >= settings.STREAMS_PER_USER:
        return too_many()
    streams.hub.watch(watcher)
    if mark is not None and streams.hub.mark(audience.campaign_id) == mark:
        watcher.version = admitted.version
        streams.hub.learned(audience.campaign_id, mark, admitted.version)
    told = request.scope.get(OPENED) if isinstance(request, ASGIRequest) else None
    if isinstance(told, list):
        told.append(watcher)  # for `answered`, which sees the headers it is answered with
    response = StreamingHttpResponse(Closable(stream(watcher)), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response
