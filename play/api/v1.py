"""Version 1 of the API (play.api): the token check, the refusals, and the reads of a campaign as its audience sees
it."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError
from ninja.security import HttpBearer
from ninja.throttling import BaseThrottle

from campaigns import access
from campaigns.clock import format_clock
from campaigns.models import AccessToken, Campaign, Event, PartyView
from play.api.schemas import (
    CampaignOut,
    CharacterOut,
    CharactersOut,
    CompanionOut,
    EventOut,
    IllnessOut,
    WoundOut,
)
from play.api.words import gettext_lazy
from play.log.pages import names_in
from play.log.story import Entry, entry_for
from play.party import companion
from play.screens.cards import Card, penalty_words
from play.screens.snapshot import Snapshot
from rules import engine, explained
from rules.actions import tokens
from rules.models import disease_name


class Bearer(HttpBearer):
    """`Authorization: Bearer 12p_…`: a live token of an active account (rules.actions.tokens.token_for), or 401."""

    def authenticate(self, request: HttpRequest, token: str) -> AccessToken | None:
        return tokens.token_for(token)


class PerToken(BaseThrottle):
    """At most `per_minute` calls a minute by one token, counted in this process by the clock's minutes (a bot that
    loops by mistake is slowed, not the table): the next is answered 429 with Retry-After. Counted in memory, not
    shared: with N server processes behind a balancer a token gets up to N times as many."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self.lock = threading.Lock()
        self.minute = 0
        self.counts: dict[int, int] = {}  # this minute's calls, by token id
        self.clock = time.time

    def allow_request(self, request: HttpRequest) -> bool:
        token = getattr(request, "auth", None)
        if not isinstance(token, AccessToken):
            return True
        minute = int(self.clock() // 60)
        with self.lock:
            if minute != self.minute:
                self.minute, self.counts = minute, {}
            count = self.counts.get(token.pk, 0)
            if count >= self.per_minute:
                return False
            self.counts[token.pk] = count + 1
        return True

    def wait(self) -> float:
        return 60 - self.clock() % 60


api = NinjaAPI(
    title="12Plus",
    version="1",
    description=gettext_lazy(
        "La API del tracker de campañas de Sistema 12Plus: lo que cada token puede ver y hacer es lo que su cuenta "
        "puede en las páginas. Cada llamada lleva «Authorization: Bearer» con un token personal (se crean en la "
        "página de la cuenta); una negativa es «application/problem+json» (RFC 9457). Los cambios en vivo: "
        "GET /api/v1/campaigns/{campaign_id}/events, un flujo Server-Sent Events de JSON tipado (mensajes «state», "
        "«change» y «end»), que se reanuda con Last-Event-ID."
    ),
    urls_namespace="api",
    auth=Bearer(),
    throttle=PerToken(settings.API_CALLS_PER_MINUTE),
    docs_url="/docs",
    openapi_url="/openapi.json",
)


def problem(request: HttpRequest, status: int, title: str, detail: str = "") -> HttpResponse:
    """A refusal as RFC 9457 says (`application/problem+json`): its status, title and detail in the request's
    language."""
    body: dict[str, Any] = {"type": "about:blank", "title": title, "status": status}
    if detail:
        body["detail"] = detail
    return HttpResponse(json.dumps(body, ensure_ascii=False), status=status, content_type="application/problem+json")


@api.exception_handler(AuthenticationError)
def unauthenticated(request: HttpRequest, error: AuthenticationError) -> HttpResponse:
    response = problem(request, 401, _("Falta un token válido"), _("Envía «Authorization: Bearer» con un token vivo."))
    response["WWW-Authenticate"] = 'Bearer realm="12plus"'
    return response


@api.exception_handler(Http404)
def not_found(request: HttpRequest, error: Http404) -> HttpResponse:
    return problem(request, 404, _("No existe, o este token no puede verlo"))


@api.exception_handler(ValidationError)
def invalid(request: HttpRequest, error: ValidationError) -> HttpResponse:
    return problem(request, 422, _("Datos no válidos"), "; ".join(str(e.get("msg", "")) for e in error.errors))


@api.exception_handler(Throttled)
def throttled(request: HttpRequest, error: Throttled) -> HttpResponse:
    response = problem(request, 429, _("Demasiadas llamadas con este token: espera un minuto."))
    response["Retry-After"] = str(max(1, int(error.wait or 60)))
    return response


@api.exception_handler(HttpError)
def http_error(request: HttpRequest, error: HttpError) -> HttpResponse:
    """What django-ninja refuses itself: a body that is not JSON (its 400) is data not valid, as any other."""
    if error.status_code == 400:
        return problem(request, 422, _("Datos no válidos"), _("El cuerpo de la petición no es JSON válido."))
    return problem(request, error.status_code, str(error))


class Refused(Exception):
    """A call refused: its status and words (those the pages give), answered as a problem."""

    def __init__(self, status: int, title: str) -> None:
        super().__init__(title)
        self.status, self.title = status, title


@api.exception_handler(Refused)
def refused(request: HttpRequest, error: Refused) -> HttpResponse:
    return problem(request, error.status, error.title)


# --- reads ------------------------------------------------------------------------------------------------------------


def token_of(request: HttpRequest) -> AccessToken:
    token = request.auth  # type: ignore[attr-defined]  # set by Bearer
    assert isinstance(token, AccessToken)
    return token


def campaign_of(request: HttpRequest, campaign_id: int) -> Campaign:
    """A campaign this token's account sees (and the token is not limited to another), or 404."""
    token = token_of(request)
    if token.campaign_id is not None and token.campaign_id != campaign_id:
        raise Http404
    return access.campaign_for_user(token.user, campaign_id)


def audience_of(request: HttpRequest, campaign: Campaign) -> access.Audience:
    """Who reads through this token: one of the campaign's GMs, or one player."""
    return access.audience_of(token_of(request).user, campaign)


def said_to(event: Event, roster: access.Roster, audience: access.Audience) -> Entry:
    """A log entry in the words its reader may read: for a GM all of it; for a player only the lines about their own
    characters (as each sheet's log says it), a healer they may not see unnamed. A player is given only the entries
    about their characters (play.api.reads.player_share, play.api.stream)."""
    if audience.is_gm:
        return entry_for(event, names_in(roster.campaign))
    own = [character for character in roster.seen_by(audience) if character.pk in event.characters]
    unseen = roster.kept_from(audience)
    parts = [entry_for(event, {c.pk: c.name}, only=c.pk, unseen=unseen) for c in own] or [
        entry_for(event, {}, only=0, unseen=unseen)
    ]
    return Entry(event, parts[0].when, parts[0].title, [line for part in parts for line in part.lines], parts[0].who)


def event_out(event: Event, entry: Entry) -> EventOut:
    return EventOut(id=event.pk, kind=event.action, title=entry.title, lines=entry.lines)


def campaign_out(campaign: Campaign) -> CampaignOut:
    return CampaignOut(
        id=campaign.pk,
        name=campaign.name,
        clock=campaign.clock,
        clock_words=format_clock(campaign.clock),
        party_view=PartyView(campaign.party_view).value,
    )


@api.get(
    "/campaigns",
    response=list[CampaignOut],
    url_name="campaigns",
    summary=gettext_lazy("Las campañas de la cuenta"),
    description=gettext_lazy(
        "Las campañas que la cuenta del token lleva o juega (solo una, si el token está limitado a ella)."
    ),
)
def campaigns(request: HttpRequest) -> list[CampaignOut]:
    token = token_of(request)
    seen = access.campaigns_of(token.user)
    if token.campaign_id is not None:
        seen = seen.filter(pk=token.campaign_id)
    return [campaign_out(campaign) for campaign in seen.order_by("name", "id")]


@api.get(
    "/campaigns/{campaign_id}",
    response=CampaignOut,
    url_name="campaign",
    summary=gettext_lazy("Una campaña"),
    description=gettext_lazy(
        "Una campaña: su nombre, su reloj (en segundos de campaña y en palabras) y lo que cada jugador ve de los demás."
    ),
)
def campaign(request: HttpRequest, campaign_id: int) -> CampaignOut:
    return campaign_out(campaign_of(request, campaign_id))


def character_out(card: Card) -> CharacterOut:
    health, character = card.health, card.character
    condition = engine.condition_of(health)
    return CharacterOut(
        id=character.pk,
        name=character.name,
        player=character.player.username if character.player is not None else None,
        pg=health.pg,
        max_pg=health.max_pg,
        dead=health.dead,
        condition=condition,
        condition_word=str(explained.CONDITIONS[condition]),
        penalties=penalty_words(health),
        wounds=[
            WoundOut(kind=line.kind, outstanding=line.outstanding, healing_time=line.healing_time, treated=line.treated)
            for line in card.wounds
        ],
        illnesses=[
            IllnessOut(
                name=disease_name(line.illness.name),
                treated=line.illness.treated,
                medicated=line.illness.medicated,
                cured=line.illness.cured_at is not None,
            )
            for line in card.illnesses
        ],
    )


@api.get(
    "/campaigns/{campaign_id}/characters",
    response=CharactersOut,
    url_name="characters",
    summary=gettext_lazy("Los personajes, como los ves"),
    description=gettext_lazy(
        "Los personajes que la cuenta ve enteros (todos para quien lleva la campaña, los suyos para un jugador) y, para"
        " un jugador, sus compañeros como los muestra la vista del grupo: PG exactos, una palabra o nada (uno oculto no"
        " aparece, ni su nombre)."
    ),
)
def characters(request: HttpRequest, campaign_id: int) -> CharactersOut:
    campaign = campaign_of(request, campaign_id)
    return characters_seen(Snapshot(campaign), audience_of(request, campaign))


def characters_seen(state: Snapshot, audience: access.Audience, touched: set[int] | None = None) -> CharactersOut:
    """The characters an audience sees in full, and a player's companions as the party view shows them (a hidden one
    not at all); with `touched`, only those among them."""
    roster = state.roster
    chosen = [character for character in roster.seen_by(audience) if touched is None or character.pk in touched]
    others = [c for c in roster.companions_of(audience) if touched is None or c.pk in touched]
    companions = [
        companion(card.character, card.health, access.seen_as(card.character, roster.campaign), card.band)
        for card in state.cards_of(others)
    ]
    return CharactersOut(
        characters=[character_out(card) for card in state.cards_of(chosen)],
        companions=[
            CompanionOut(
                name=c.name,
                player=c.player,
                pg=c.pg,
                max_pg=c.max_pg,
                dead=c.dead if c.exact else None,
                condition=c.condition or None,
                condition_word=c.word or None,
            )
            for c in companions
        ],
    )
