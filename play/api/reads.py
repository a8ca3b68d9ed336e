"""The API's reads beyond the characters (play.api): the log (the GM's, or a player's share of it), the checks waiting
for their roll, the diseases a GM may expose to, the game sessions and a session's recap, each as its reader may read
it on the pages (campaigns.access, play.log.recaps: nothing filtered again here)."""

from __future__ import annotations

from django.http import Http404, HttpRequest
from django.utils.translation import gettext as _

from campaigns import access
from campaigns.models import Campaign
from play.api.schemas import (
    CheckOut,
    DiseaseOut,
    EntryOut,
    LogOut,
    RecapCharacterOut,
    RecapCompanionOut,
    RecapOut,
    SessionOut,
)
from play.api.v1 import Refused, api, audience_of, campaign_of, said_to, token_of
from play.api.words import gettext_lazy
from play.log.pages import LOG_LENGTH, next_page, older_than, table_log
from play.log.story import Entry
from play.screens.game_sessions import recap_of
from rules.actions.checks import die_sides
from rules.models import CalledCheck, CallStatus, CheckKind, Disease, disease_name


def entry_out(entry: Entry, typed: bool) -> EntryOut:
    event = entry.event
    return EntryOut(
        id=event.pk,
        kind=event.action,
        clock_before=event.clock_before,
        clock_after=event.clock_after,
        when=entry.when,
        undone=event.undone,
        who=entry.who,
        title=entry.title,
        lines=entry.lines,
        details=event.details if typed else None,
    )


def player_share(campaign: Campaign, audience: access.Audience, before: int | None) -> list[Entry]:
    """A player's share of the log: the entries about their own characters, in the words they may read (said_to)."""
    roster = access.roster_of(campaign)
    own = [character.pk for character in roster.seen_by(audience)]
    if not own:
        return []
    about = campaign.events.filter(characters__overlap=own)
    return [said_to(event, roster, audience) for event in older_than(about, before)[:LOG_LENGTH]]


@api.get(
    "/campaigns/{campaign_id}/log",
    response=LogOut,
    url_name="log",
    summary=gettext_lazy("El registro, por páginas"),
    description=gettext_lazy(
        "El registro, 40 entradas por página, lo más reciente primero; «before»: la página anterior a esa entrada. "
        "Quien lleva la campaña lee todo el registro con el suceso tipado de cada entrada; un jugador, su parte: las "
        "entradas sobre sus personajes, en palabras."
    ),
)
def log(request: HttpRequest, campaign_id: int, before: int | None = None) -> LogOut:
    campaign = campaign_of(request, campaign_id)
    audience = audience_of(request, campaign)
    if before is not None and not 0 < before < 2**63:
        raise Refused(422, _("«before» debe ser el id de una entrada."))
    entries = table_log(campaign, before=before) if audience.is_gm else player_share(campaign, audience, before)
    return LogOut(
        entries=[entry_out(entry, audience.is_gm) for entry in entries], before=next_page(entries, LOG_LENGTH)
    )


@api.get(
    "/campaigns/{campaign_id}/checks",
    response=list[CheckOut],
    url_name="checks",
    summary=gettext_lazy("Tiradas pendientes"),
    description=gettext_lazy(
        "Las tiradas pedidas que esperan su dado: todas para quien lleva la campaña, las de sus personajes para un "
        "jugador."
    ),
)
def checks(request: HttpRequest, campaign_id: int) -> list[CheckOut]:
    campaign = campaign_of(request, campaign_id)
    audience = audience_of(request, campaign)
    seen = {character.pk for character in access.roster_of(campaign).seen_by(audience)}
    rows = (
        CalledCheck.objects.filter(campaign=campaign, status=CallStatus.PENDING, character__in=seen)
        .select_related("character", "disease")
        .order_by("id")
    )
    return [
        CheckOut(
            id=row.pk,
            character=row.character_id,
            character_name=row.character.name,
            kind=row.kind,
            kind_words=str(CheckKind(row.kind).label),
            die=die_sides(row.kind),
            height_m=row.height_m,
            difficulty=row.difficulty,
            disease=disease_name(row.disease.name) if row.disease is not None else None,
            called=row.called_id,
        )
        for row in rows
    ]


@api.get(
    "/campaigns/{campaign_id}/diseases",
    response=list[DiseaseOut],
    url_name="diseases",
    summary=gettext_lazy("Enfermedades"),
    description=gettext_lazy(
        "Las enfermedades a las que se puede exponer a los personajes: las del reglamento y las propias de la campaña."
    ),
)
def diseases(request: HttpRequest, campaign_id: int) -> list[DiseaseOut]:
    campaign = campaign_of(request, campaign_id)
    if not audience_of(request, campaign).is_gm:
        raise Refused(403, _("Solo quien lleva la campaña puede hacer esto."))
    return [
        DiseaseOut(id=disease.pk, name=disease_name(disease.name), category=disease.category)
        for disease in Disease.objects.available_in(campaign).order_by("name", "id")
    ]


@api.get(
    "/campaigns/{campaign_id}/sessions",
    response=list[SessionOut],
    url_name="sessions",
    summary=gettext_lazy("Sesiones"),
    description=gettext_lazy(
        "Las sesiones de juego: todas para quien lleva la campaña; para un jugador, las que tienen el resumen "
        "compartido."
    ),
)
def sessions(request: HttpRequest, campaign_id: int) -> list[SessionOut]:
    campaign = campaign_of(request, campaign_id)
    listed = campaign.game_sessions.order_by("number")
    if not audience_of(request, campaign).is_gm:
        listed = listed.filter(shared_at__isnull=False)
    return [
        SessionOut(
            number=session.number,
            playing=session.ended_id is None,
            shared=session.shared_at is not None,
            started=session.started_id,
            ended=session.ended_id,
        )
        for session in listed
    ]


@api.get(
    "/campaigns/{campaign_id}/sessions/{number}/recap",
    response=RecapOut,
    url_name="recap",
    summary=gettext_lazy("Un resumen"),
    description=gettext_lazy(
        "El resumen de una sesión como lo lee su lector en su página: los personajes de un jugador enteros, un "
        "compañero como lo muestra la vista del grupo (uno oculto, en absoluto); un jugador solo lee un resumen "
        "compartido."
    ),
)
def recap(request: HttpRequest, campaign_id: int, number: int) -> RecapOut:
    campaign_of(request, campaign_id)  # a token limited to another campaign: 404
    if not 0 < number < 2**31:
        raise Http404
    session = access.session_for_user(token_of(request).user, campaign_id, number)
    campaign = session.campaign
    made = recap_of(campaign, session, audience_of(request, campaign))
    return RecapOut(
        number=session.number,
        clock_start=made.clock_start,
        clock_end=made.clock_end,
        time_passed=made.time_passed,
        characters=[
            RecapCharacterOut(
                id=line.row.pk,
                name=line.row.name,
                pg_start=line.row.pg_start,
                pg_end=line.row.pg_end,
                died=line.died,
                wounds=line.wounds,
                rolls=line.rolls,
                pending=line.pending,
                caught=line.caught,
                cured=line.cured,
            )
            for line in made.characters
        ],
        companions=[
            RecapCompanionOut(
                name=companion.name,
                pg_start=companion.pg_start,
                pg_end=companion.pg_end,
                max_pg=companion.max_pg,
                condition_start=companion.word_start or None,
                condition_end=companion.word_end or None,
                died=companion.died if companion.exact else None,
            )
            for companion in made.companions
        ],
        entries=made.seen.entries,
    )
