"""The API's actions (play.api): each through rules.actions, as the pages act, by a token whose scope is "leer y
actuar" and whose account holds the right (campaigns.access); a refusal is a problem (RFC 9457) with the page's
words."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.models import User
from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Status

from campaigns import access
from campaigns.clock import parse_duration
from campaigns.models import Campaign, TokenScope
from play.api.schemas import (
    ActedOut,
    AdvanceIn,
    AnswerIn,
    CancelIn,
    DamageIn,
    ExertionIn,
    ExposeIn,
    MedicateIn,
    PreviewOut,
    PreviewRowOut,
    TreatIllnessIn,
    TreatWoundsIn,
)
from play.api.v1 import Refused, api, audience_of, campaign_of, character_out, event_out, said_to, token_of
from play.api.words import gettext_lazy
from play.screens.preview import preview_in_words
from play.screens.snapshot import Snapshot
from rules import actions, engine, queries
from rules.damage import Attack, Collision, Damage, Drowning, Fall, Gas
from rules.models import CalledCheck


def acting(request: HttpRequest, campaign_id: int) -> Campaign:
    """The campaign, for a token that may act (scope "leer y actuar"); else 404 (unseen) or 403."""
    campaign = campaign_of(request, campaign_id)
    if token_of(request).scope != TokenScope.ACT:
        raise Refused(403, _("Este token solo puede leer."))
    return campaign


def table_of_token(request: HttpRequest, campaign_id: int) -> Campaign:
    """The campaign, for a token that may act and whose account runs its table; else 404 (unseen) or 403."""
    campaign = acting(request, campaign_id)
    if not access.is_gm(token_of(request).user, campaign):
        raise Refused(403, _("Solo quien lleva la campaña puede hacer esto."))
    return campaign


def refusal(error: actions.ActionError) -> Refused:
    """An action's refusal as the API answers it: 403 when the account may not (no field: rules.actions.core.allowed),
    409 when the table moved on (a version, a check already rolled, an entry no longer the latest), else 422."""
    if error.field is None:
        return Refused(403, error.message)
    return Refused(409 if error.field in ("version", "check", "event") else 422, error.message)


def acted(request: HttpRequest, campaign: Campaign, outcome: actions.Outcome) -> ActedOut:
    """What an action answers: the entry it logged and the characters it touched, as this token's account sees them
    (a player's own, for a check they answered)."""
    campaign.refresh_from_db()
    state = Snapshot(campaign)
    audience = audience_of(request, campaign)
    event = outcome.event
    said = None if event is None else event_out(event, said_to(event, state.roster, audience))
    touched = {character.pk for character in outcome.characters}
    seen = [character for character in state.roster.seen_by(audience) if character.pk in touched]
    return ActedOut(event=said, characters=[character_out(card) for card in state.cards_of(seen)])


def answered(request: HttpRequest, campaign: Campaign, act: Callable[[User], actions.Outcome]) -> ActedOut:
    """An action taken by the token's account (`act`, given it), answered as `acted`, or its refusal."""
    try:
        outcome = act(token_of(request).user)
    except actions.ActionError as error:
        raise refusal(error) from error
    return acted(request, campaign, outcome)


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


@api.post(
    "/campaigns/{campaign_id}/damage",
    response=ActedOut,
    url_name="damage",
    summary=gettext_lazy("Aplicar daño"),
    description=gettext_lazy(
        "Herir a uno o varios personajes, como «Aplicar daño» en la mesa: el servidor tira los dados y las tiradas que "
        "hagan falta. Responde con la entrada del registro y los personajes como quedan."
    ),
)
def damage(request: HttpRequest, campaign_id: int, blow: DamageIn) -> ActedOut:
    campaign = table_of_token(request, campaign_id)
    blown = damage_of(blow)
    return answered(request, campaign, lambda by: actions.apply_damage(campaign, blow.characters, blown, by=by))


@api.post(
    "/campaigns/{campaign_id}/undo",
    response=ActedOut,
    url_name="undo",
    summary=gettext_lazy("Deshacer el último cambio"),
    description=gettext_lazy(
        "Deshacer el último cambio, como el botón de la mesa; «event»: el que se quiere deshacer (se rechaza si ya es "
        "otro)."
    ),
)
def undo(request: HttpRequest, campaign_id: int, event: int | None = None) -> ActedOut:
    campaign = table_of_token(request, campaign_id)
    return answered(request, campaign, lambda by: actions.undo(campaign, by=by, event=event))


@api.post(
    "/campaigns/{campaign_id}/advance",
    response={200: ActedOut, 202: PreviewOut},
    url_name="advance",
    summary=gettext_lazy("Avanzar el reloj (o ver antes qué pasará)"),
    description=gettext_lazy(
        "Avanzar el reloj, como su formulario: con «preview», lo que hará (202, sin cambiar nada) y la versión a la que"
        " aplicarlo; sin él, el avance (409 si se da «version» y la mesa cambió desde entonces)."
    ),
)
def advance(request: HttpRequest, campaign_id: int, time: AdvanceIn) -> Status[ActedOut | PreviewOut]:
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
        raise refusal(error) from error
    return Status(200, acted(request, campaign, outcome))


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


@api.post(
    "/campaigns/{campaign_id}/expose",
    response=ActedOut,
    url_name="expose",
    summary=gettext_lazy("Exponer a una enfermedad"),
    description=gettext_lazy(
        "Exponer personajes a una enfermedad: cada uno tira resistencia (1d12 + CON, la tira el servidor) salvo que hoy"
        " esté protegido; los muertos no tiran."
    ),
)
def expose(request: HttpRequest, campaign_id: int, exposure: ExposeIn) -> ActedOut:
    campaign = table_of_token(request, campaign_id)
    return answered(
        request, campaign, lambda by: actions.expose(campaign, exposure.characters, exposure.disease, by=by)
    )


@api.post(
    "/campaigns/{campaign_id}/treat-wounds",
    response=ActedOut,
    url_name="treat_wounds",
    summary=gettext_lazy("Curar heridas"),
    description=gettext_lazy(
        "Un personaje con Curar Heridas trata las heridas del paciente (también las suyas): curan en la mitad de "
        "tiempo."
    ),
)
def treat_wounds(request: HttpRequest, campaign_id: int, treatment: TreatWoundsIn) -> ActedOut:
    campaign = table_of_token(request, campaign_id)
    return answered(
        request, campaign, lambda by: actions.treat_wounds(campaign, treatment.patient, treatment.healer, by=by)
    )


@api.post(
    "/campaigns/{campaign_id}/treat-illness",
    response=ActedOut,
    url_name="treat_illness",
    summary=gettext_lazy("Tratar enfermedad"),
    description=gettext_lazy("Otro personaje con Curar Heridas trata una enfermedad del paciente."),
)
def treat_illness(request: HttpRequest, campaign_id: int, treatment: TreatIllnessIn) -> ActedOut:
    campaign = table_of_token(request, campaign_id)
    patient, illness, healer = treatment.patient, treatment.illness, treatment.healer
    return answered(request, campaign, lambda by: actions.treat_illness(campaign, patient, illness, healer, by=by))


@api.post(
    "/campaigns/{campaign_id}/medicate",
    response=ActedOut,
    url_name="medicate",
    summary=gettext_lazy("Dar medicamentos"),
    description=gettext_lazy("Dar sus medicamentos a una enfermedad del paciente."),
)
def medicate(request: HttpRequest, campaign_id: int, medicine: MedicateIn) -> ActedOut:
    campaign = table_of_token(request, campaign_id)
    return answered(request, campaign, lambda by: actions.medicate(campaign, medicine.patient, medicine.illness, by=by))


@api.post(
    "/campaigns/{campaign_id}/exertion",
    response=ActedOut,
    url_name="exertion",
    summary=gettext_lazy("Tirada de esfuerzo"),
    description=gettext_lazy(
        "Una acción física con 1 a 4 PG: 1d12 + CON contra 12, o se pierde 1 PG; «die» como salió en la mesa, o lo tira"
        " el servidor."
    ),
)
def exertion(request: HttpRequest, campaign_id: int, effort: ExertionIn) -> ActedOut:
    campaign = table_of_token(request, campaign_id)
    return answered(request, campaign, lambda by: actions.exertion(campaign, effort.character, by=by, die=effort.die))


@api.post(
    "/campaigns/{campaign_id}/checks/{check_id}/answer",
    response=ActedOut,
    url_name="answer_check",
    summary=gettext_lazy("Tirar una tirada pedida"),
    description=gettext_lazy(
        "El jugador del personaje (o quien lleva la campaña) tira una tirada pedida: «die» como salió, o la tira el "
        "servidor. Una sola vez: una segunda respuesta se rechaza (409) y no cambia nada."
    ),
)
def answer_check(request: HttpRequest, campaign_id: int, check_id: int, answer: AnswerIn) -> ActedOut:
    campaign = acting(request, campaign_id)
    audience = audience_of(request, campaign)
    seen = [character.pk for character in access.roster_of(campaign).seen_by(audience)]
    if not 0 < check_id < 2**63 or not CalledCheck.objects.filter(pk=check_id, character__in=seen).exists():
        raise Refused(404, _("Esa tirada no existe."))
    return answered(request, campaign, lambda by: actions.answer_check(campaign, check_id, by=by, die=answer.die))


@api.post(
    "/campaigns/{campaign_id}/checks/cancel",
    response=ActedOut,
    url_name="cancel_checks",
    summary=gettext_lazy("Anular"),
    description=gettext_lazy(
        "Anular tiradas pedidas que siguen pendientes: queda en el registro, y deshacerlo las vuelve a pedir."
    ),
)
def cancel_checks(request: HttpRequest, campaign_id: int, cancelled: CancelIn) -> ActedOut:
    campaign = table_of_token(request, campaign_id)
    return answered(request, campaign, lambda by: actions.cancel_check(campaign, cancelled.checks, by=by))
