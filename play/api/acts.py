"""The API's actions (play.api): each through rules.actions, as the pages act, by a token whose scope is "leer y
actuar" and whose account holds the right (campaigns.access); a refusal is a problem (RFC 9457) with the page's
words."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from ninja import Status

from campaigns import access
from campaigns.clock import parse_duration
from campaigns.models import Campaign, TokenScope
from play.api.schemas import (
    ActedOut,
    AdvanceIn,
    CharacterOut,
    DamageIn,
    EntryOut,
    EventOut,
    LogOut,
    PreviewOut,
    PreviewRowOut,
)
from play.api.v1 import api, campaign_of, character_out, problem, token_of
from play.log.pages import LOG_LENGTH, next_page, table_log
from play.log.story import entry_for
from play.screens.preview import preview_in_words
from play.screens.snapshot import Snapshot
from rules import actions, engine, queries
from rules.damage import Attack, Collision, Damage, Drowning, Fall, Gas


class Refused(Exception):
    """An action refused: its status and words, answered as a problem."""

    def __init__(self, status: int, title: str, field: str | None = None) -> None:
        super().__init__(title)
        self.status, self.title, self.field = status, title, field


@api.exception_handler(Refused)
def refused(request: HttpRequest, error: Refused) -> HttpResponse:
    response = problem(request, error.status, error.title)
    return response


def table_of_token(request: HttpRequest, campaign_id: int) -> Campaign:
    """The campaign, for a token that may act and whose account runs its table; else 404 (unseen) or 403."""
    campaign = campaign_of(request, campaign_id)
    token = token_of(request)
    if token.scope != TokenScope.ACT:
        raise Refused(403, _("Este token solo puede leer."))
    if not access.is_gm(token.user, campaign):
        raise Refused(403, _("Solo quien lleva la campaña puede hacer esto."))
    return campaign


def acted(campaign: Campaign, outcome: actions.Outcome) -> ActedOut:
    event = outcome.event
    said = None
    if event is not None:
        state = Snapshot(campaign)
        names = {character.pk: character.name for character in state.roster.characters}
        entry = entry_for(event, names)
        said = EventOut(id=event.pk, kind=event.action, title=entry.title, lines=entry.lines)
    campaign.refresh_from_db()
    state = Snapshot(campaign)
    touched = [c for c in state.roster.characters if c.pk in {character.pk for character in outcome.characters}]
    characters: list[CharacterOut] = [character_out(card) for card in state.cards_of(touched)]
    return ActedOut(event=said, characters=characters)


def damage_of(blow: DamageIn) -> Damage:
    """The blow as rules.damage types it; what it lacks is refused in words."""
    needed = {
        "collision": blow.speed_kmh,
        "fall": blow.height_m,
        "drowning": blow.turns,
        "gas": blow.turns,
    }
    if blow.kind in needed and needed[blow.kind] is None:
        raise Refused(422, _("Falta un dato de ese tipo de daño."))
    match blow.kind:
        case "attack":
            return Attack(amount=blow.amount, expression=blow.dice)
        case "collision":
            return Collision(speed_kmh=int(blow.speed_kmh or 0), weight_kg=blow.weight_kg)
        case "fall":
            difficulty = engine.DEFAULT_FALL_DIFFICULTY if blow.difficulty is None else blow.difficulty
            return Fall(height_m=int(blow.height_m or 0), weight_kg=blow.weight_kg, difficulty=difficulty)
        case "drowning":
            return Drowning(turns=int(blow.turns or 0))
        case _:
            return Gas(turns=int(blow.turns or 0))


@api.post("/campaigns/{campaign_id}/damage", response=ActedOut, url_name="damage", summary="Aplicar daño")
def damage(request: HttpRequest, campaign_id: int, blow: DamageIn) -> ActedOut:
    """Wound one or several characters, as "Aplicar daño" does (the server rolls any check and any dice)."""
    campaign = table_of_token(request, campaign_id)
    try:
        outcome = actions.apply_damage(campaign, blow.characters, damage_of(blow), by=token_of(request).user)
    except actions.ActionError as error:
        raise Refused(422, error.message, error.field) from error
    return acted(campaign, outcome)


@api.post("/campaigns/{campaign_id}/undo", response=ActedOut, url_name="undo", summary="Deshacer el último cambio")
def undo(request: HttpRequest, campaign_id: int, event: int | None = None) -> ActedOut:
    """Undo the latest change, as the table's button does; `event`: the one the caller means (refused if another)."""
    campaign = table_of_token(request, campaign_id)
    try:
        outcome = actions.undo(campaign, by=token_of(request).user, event=event)
    except actions.ActionError as error:
        raise Refused(409, error.message, error.field) from error
    return acted(campaign, outcome)


@api.get("/campaigns/{campaign_id}/log", response=LogOut, url_name="log", summary="El registro, por páginas")
def log(request: HttpRequest, campaign_id: int, before: int | None = None) -> LogOut:
    """The GM's log, 40 entries a page, newest first; `before`: the page before that entry id. (For the campaign's GMs:
    a player's share of it comes later.)"""
    campaign = campaign_of(request, campaign_id)
    if not access.is_gm(token_of(request).user, campaign):
        raise Refused(403, _("Solo quien lleva la campaña lee su registro por la API."))
    if before is not None and not 0 < before < 2**63:
        raise Refused(422, _("«before» debe ser el id de una entrada."))
    entries = table_log(campaign, before=before)
    return LogOut(
        entries=[
            EntryOut(
                id=entry.event.pk,
                kind=entry.event.action,
                clock_before=entry.event.clock_before,
                clock_after=entry.event.clock_after,
                when=entry.when,
                undone=entry.event.undone,
                who=entry.who,
                title=entry.title,
                lines=entry.lines,
                details=entry.event.details,
            )
            for entry in entries
        ],
        before=next_page(entries, LOG_LENGTH),
    )


@api.post(
    "/campaigns/{campaign_id}/advance",
    response={200: ActedOut, 202: PreviewOut},
    url_name="advance",
    summary="Avanzar el reloj (o ver antes qué pasará)",
)
def advance(request: HttpRequest, campaign_id: int, time: AdvanceIn) -> Status[ActedOut | PreviewOut]:
    """As the clock's form: with `preview`, what the advance will do (202, nothing changed) and the version to apply it
    at; without it, the advance (refused with 409 when `version` is given and the table changed since)."""
    campaign = table_of_token(request, campaign_id)
    seconds = seconds_of(time)
    by = token_of(request).user
    try:
        if time.preview:
            preview = queries.preview_advance(campaign, seconds, resting=time.resting)
            words = preview_in_words(preview)
            rows = [
                PreviewRowOut(
                    name=row.name,
                    pg_before=row.pg_before,
                    pg_after=row.pg_after,
                    max_pg=row.max_pg,
                    rests=row.rests,
                    dies=row.dies,
                    lines=row.lines,
                )
                for row in words.rows
            ]
            return Status(202, PreviewOut(title=words.title, seconds=seconds, version=preview.version, characters=rows))
        outcome = actions.advance_clock(campaign, seconds, by=by, resting=time.resting, version=time.version)
    except actions.ActionError as error:
        raise Refused(409 if error.field == "version" else 422, error.message, error.field) from error
    return Status(200, acted(campaign, outcome))


def seconds_of(time: AdvanceIn) -> int:
    """The advance's length: typed as a duration, or in seconds; one of the two."""
    if (time.duration is None) == (time.seconds is None):
        raise Refused(422, _("Indica «duration» (como 1d12h) o «seconds», uno de los dos."))
    if time.seconds is not None:
        return time.seconds
    try:
        return parse_duration(str(time.duration))
    except ValueError as error:
        raise Refused(422, str(error)) from error
