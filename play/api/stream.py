"""Live for bots (play.api): `GET /api/v1/campaigns/<id>/events`, a Server-Sent Events stream of typed JSON.

It rides the pages' hub (play.live.streams): one LISTEN per process, each change drawn once per view — here an
`ApiView`, one account's audience reading in one language — and the same bytes handed to every stream of that view.
Its messages:

- `state` (the first, without `Last-Event-ID`): the campaign and its characters as this audience sees them, its `id`
  the latest log entry;
- `change`: one log entry (`id`: the entry's id, `kind`, its words for this reader) and the characters it touched with
  their new public state for this audience (a player: their own in full, a companion as the party view shows it, a
  hidden one never: no name, no id);
- `end`: why the stream ends (`gone`, `session`: the token was revoked or expired, `role`).

With `Last-Event-ID` (or `?last_event_id=`) it first sends the entries after that one it missed, each with the state
of its characters as they are now (at most REPLAYED of them: else a `state`). A token revoked ends its streams at once
(rules.actions.tokens.revoke_token tells every process, as a logout does); an expired one at the next heartbeat.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Iterable
from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from campaigns import access
from campaigns.models import AccessToken, Campaign, Event
from play.api.v1 import campaign_out, characters_seen, event_out, problem, said_to
from play.live import streams
from play.live.connects import Closable, ending, listening, told
from play.live.messages import Ending, Watched, sse
from play.live.watchers import ENDS, GONE, RESYNC, RETRY, Screens, Watcher
from play.screens.answers import ending_of
from play.screens.snapshot import Snapshot
from rules import notify
from rules.actions import tokens

REPLAYED = 200  # entries a resumed stream is sent at most; a longer gap is one `state`


@dataclass(frozen=True)
class ApiView:
    """What one account's API streams of a campaign show, in one language: drawn once for all of them."""

    campaign_id: int
    user_id: int
    is_gm: bool
    language: str

    kind = "api"

    @property
    def audience(self) -> access.Audience:
        return access.Audience(self.campaign_id, self.user_id, is_gm=self.is_gm)


# --- drawing (sync: the ORM) ------------------------------------------------------------------------------------------


def compact(body: dict[str, Any]) -> str:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def json_message(kind: str, body: dict[str, Any], event: int | None = None) -> str:
    text = sse(kind, compact(body))
    return text if event is None else f"id: {event}\n{text}"


def state_message(campaign: Campaign, state: Snapshot, view: ApiView, latest: int) -> str:
    body = {
        "campaign": campaign_out(campaign).model_dump(),
        "version": campaign.version,
        **characters_seen(state, view.audience).model_dump(),
    }
    return json_message("state", body, latest)


def change_body(event: Event, state: Snapshot, view: ApiView) -> dict[str, Any] | None:
    """One entry as this view may read it, with the characters it touched as they are now; None when it touched
    nobody this audience sees (a player is told nothing of a hidden companion, nor of an entry about none of theirs)."""
    audience = view.audience
    touched = set(event.characters)
    seen = characters_seen(state, audience, touched)
    if not audience.is_gm and not seen.characters and not seen.companions:
        return None
    campaign = state.campaign
    return {
        "event": event_out(event, said_to(event, state.roster, audience)).model_dump(),
        "clock": campaign.clock,
        "version": campaign.version,
        **seen.model_dump(),
    }


def draw_changes(change: notify.Change, views: set[ApiView]) -> dict[ApiView, str | None]:
    """A change for each of these views: the campaign's rows read once for all of them."""
    campaign = Campaign.objects.filter(pk=change.campaign_id).first()
    if campaign is None:
        return dict.fromkeys(views)
    event = None if change.event is None else campaign.events.filter(pk=change.event).first()
    state = Snapshot(campaign)
    drawn: dict[ApiView, str | None] = {}
    for view in views:
        with translation.override(view.language):
            why = ending_of(state.roster, view.audience)
            if why is not None:
                drawn[view] = why
            elif event is None:  # no entry to tell (an edit of the sheets): the characters it touched, as they are
                seen = characters_seen(
                    state, view.audience, None if change.characters is None else set(change.characters)
                )
                edited = {"event": None, "clock": campaign.clock, "version": campaign.version, **seen.model_dump()}
                drawn[view] = compact(edited)
            else:
                body = change_body(event, state, view)
                drawn[view] = "" if body is None else compact(body)
    return drawn


def opening(view: ApiView, since: int | None) -> tuple[bytes | Ending, int]:
    """A stream's first messages and the latest entry they reach: the state, or the entries after `since`."""
    campaign = Campaign.objects.filter(pk=view.campaign_id).first()
    if campaign is None:
        return Ending.GONE, 0
    state = Snapshot(campaign)
    with translation.override(view.language):
        why = ending_of(state.roster, view.audience)
        if why is not None:
            return why, 0
        latest = campaign.events.order_by("-id").values_list("id", flat=True).first() or 0
        missed = [] if since is None else list(campaign.events.filter(pk__gt=since).order_by("id")[: REPLAYED + 1])
        if since is None or since > latest or len(missed) > REPLAYED:
            return state_message(campaign, state, view, latest).encode(), latest
        texts = []
        for event in missed:
            body = change_body(event, state, view)
            if body is not None:
                texts.append(json_message("change", body, event.pk))
        return "".join(texts).encode(), max([since, *(event.pk for event in missed)])


def with_api(pages: Screens[Any]) -> Screens[Watched]:
    """The pages' screens and the API's streams, as the hub asks them of one registered object: a change is drawn
    for the pages' views by the pages (play.screens.streamed) and for the API's by `draw_changes`."""

    def split(views: Iterable[Watched]) -> tuple[set[Any], set[ApiView]]:
        ours = {view for view in views if isinstance(view, ApiView)}
        return {view for view in views if not isinstance(view, ApiView)}, ours

    def changed(change: notify.Change, views: set[Watched]) -> dict[Watched, str | None]:
        theirs, ours = split(views)
        drawn: dict[Watched, str | None] = dict(pages.changed(change, theirs)) if theirs else {}
        if ours:
            try:
                drawn.update({view: text for view, text in draw_changes(change, ours).items()})
            finally:
                give_back()  # this runs on a worker thread
        return drawn

    def whole(view: Watched) -> str | None:
        if isinstance(view, ApiView):
            first, _latest = opened(view, None)  # on a worker thread, as the pages' `whole`
            return None if isinstance(first, Ending) else first.decode()
        result: str | None = pages.whole(view)
        return result

    def showed(campaign_id: int, views: list[Watched], event: int | None) -> None:
        pages.showed(campaign_id, [view for view in views if not isinstance(view, ApiView)], event)

    def ended(view: Watched, last_event: int) -> None:
        if not isinstance(view, ApiView):
            pages.ended(view, last_event)

    return Screens[Watched](
        changed=changed, promised=pages.promised, whole=whole, version=pages.version, showed=showed, ended=ended
    )


# --- the stream (async) ----------------------------------------------------------------------------------------------


def admitted(token: AccessToken, campaign_id: int, language: str) -> ApiView | None:
    """The view this token's account may watch of the campaign, or None (not seen, or the token limited to another)."""
    if token.campaign_id is not None and token.campaign_id != campaign_id:
        return None
    campaign = access.CAMPAIGN_SEEN.first(user=token.user_id, campaign=campaign_id)
    if campaign is None:
        return None
    audience = access.audience_of(token.user, campaign)
    if not access.roster_of(campaign).still_sees(audience):
        return None
    return ApiView(campaign.pk, token.user_id, audience.is_gm, language)


def last_event_of(request: HttpRequest) -> int | None:
    sent = request.headers.get("Last-Event-ID") or request.GET.get("last_event_id", "")
    return int(sent) if sent.isascii() and sent.isdigit() and len(sent) < 19 else None


@require_GET
async def events(request: HttpRequest, campaign_id: int) -> HttpResponseBase:
    """The campaign's changes as they happen, for a token (`Authorization: Bearer`): see the module's docstring."""
    sent = request.headers.get("Authorization", "")
    secret = sent.removeprefix("Bearer ").strip() if sent.startswith("Bearer ") else ""
    token = await sync_to_async(checked_token)(secret)
    if token is None:
        answer = problem(
            request, 401, _("Falta un token válido"), _("Envía «Authorization: Bearer» con un token vivo.")
        )
        answer["WWW-Authenticate"] = 'Bearer realm="12plus"'
        return answer
    language = translation.get_language() or settings.LANGUAGE_CODE
    view = await sync_to_async(admitted)(token, campaign_id, language)
    if view is None:
        return problem(request, 404, _("No existe, o este token no puede verlo"))
    if not isinstance(request, ASGIRequest):
        return HttpResponse(status=204)  # under WSGI a stream would hold a whole thread: `make run` serves ASGI
    if streams.hub.streams_of(token.user_id) >= settings.STREAMS_PER_USER:
        answer = problem(request, 429, _("Demasiadas pantallas abiertas con esta cuenta"))
        answer["Retry-After"] = "30"
        return answer
    await sync_to_async(give_back)()
    key = tokens.stream_key(token.pk)
    watcher = streams.hub.watch(Watcher(view, "", notify.session_digest(key), token.expires, key))
    response = StreamingHttpResponse(
        Closable(stream(watcher, last_event_of(request))), content_type="text/event-stream"
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


def give_back() -> None:
    """The pooled connection given back before the stream starts: it may last hours."""
    connections["default"].close()


def opened(view: ApiView, since: int | None) -> tuple[bytes | Ending, int]:
    """`opening`, on a worker thread: its connection given back."""
    try:
        return opening(view, since)
    finally:
        give_back()


def checked_token(secret: str) -> AccessToken | None:
    return tokens.token_for(secret) if secret else None


async def stream(watcher: Watcher, since: int | None) -> AsyncGenerator[bytes]:
    """One bot's stream: the state (or what it missed), then every change it may read, with heartbeats. A change
    already in its first messages (its entry id at most the latest they reach) is not sent again."""
    watcher.started = True
    view = watcher.seen
    assert isinstance(view, ApiView)
    try:
        yield RETRY
        await listening()
        first, latest = await sync_to_async(opened, thread_sensitive=False)(view, since)
        if isinstance(first, Ending):
            yield ending(first)
            return
        yield first
        while not watcher.dropped:
            message, event = await watcher.queue.get()
            if (said := told(watcher, message)) is not None:  # a move: Last-Event-ID, nothing is missed
                yield said[0]
                if said[1]:
                    return
                continue
            if message == RESYNC:  # the listener reconnected: what was missed meanwhile, from the log
                first, latest = await sync_to_async(opened, thread_sensitive=False)(view, latest)
                if isinstance(first, Ending):
                    yield ending(first)
                    return
                yield first
                continue
            if message in ENDS:
                yield ending(str(message))
                return
            if event and event <= latest:
                streams.hub.sent(event)  # in its first messages already
                continue
            data = message if isinstance(message, bytes) else message.encode()
            yield (f"id: {event}\n".encode() + data) if event else data
            latest = max(latest, event)
            if event:
                streams.hub.sent(event)
    finally:
        streams.hub.forget(watcher)


__all__ = ["GONE", "ApiView", "events", "with_api"]
