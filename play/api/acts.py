"""The API's actions (play.api): each through rules.actions, as the pages act, by a token whose scope is "leer y
actuar" and whose account holds the right (campaigns.access); a refusal is a problem (RFC 9457) with the page's
words."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _

from campaigns import access
from campaigns.models import Campaign, TokenScope
from play.api.schemas import ActedOut, CharacterOut, DamageIn, EventOut
from play.api.v1 import api, campaign_of, character_out, problem, token_of
from play.log.story import entry_for
from play.screens.snapshot import Snapshot
from rules import actions, engine
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
