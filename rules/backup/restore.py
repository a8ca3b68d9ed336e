"""Restoring a document as a new campaign of the GM who imports it: checked in full first (rules.backup.read and
rules.backup.validate), then written in one transaction — a refusal says where and writes nothing.

Accounts belong to a site and do not travel: players, memberships and invitation links stay where the campaign was
played. Who did each entry (and who undid it) travels by username: the entries under the importing GM's own username
are credited to that GM, and every other one to no account of this site — never to one that happens to have the name
— while the entry keeps the name (Event.actor_name, undone_by_name), so that an export writes it again.
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.utils.translation import gettext as _

from campaigns.models import Campaign, Event, GameSession
from characters.models import Character, NpcTemplate
from rules import engine, events, mapping
from rules.actions.campaign import room_for_one_more
from rules.actions.core import ActionError, checked_name
from rules.actions.diseases import folded, names_of
from rules.actions.sheet import NAME_LENGTH
from rules.backup import references
from rules.backup.game_sessions import sessions_of
from rules.backup.read import as_document, invalid_copy
from rules.backup.schema import CharacterEntry, DiseaseEntry, Document, EventEntry, TemplateEntry, with_diseases
from rules.backup.validate import validate
from rules.models import Disease, Illness, Wound

logger = logging.getLogger(__name__)


@transaction.atomic
def import_campaign(document: Document | dict[str, Any], gm: User, name: str | None = None) -> Campaign:
    """A new campaign run by `gm` from an exported document (its JSON values, or as read_document reads a file),
    named `name` (checked as any campaign name), or as the document names it."""
    document = as_document(document)
    head = document.campaign
    name = head.name if name is None else checked_name(name, NAME_LENGTH)
    payloads = validate(document)
    in_play = sum(1 for c in document.characters if not c.removed)
    if in_play > settings.CHARACTERS_PER_CAMPAIGN:
        message = _("La copia tiene %(n)s personajes en juego; este sitio admite %(max)s por campaña.")
        raise ActionError(message % {"n": in_play, "max": settings.CHARACTERS_PER_CAMPAIGN}, "file")
    room_for_one_more(gm)
    Disease.objects.ensure_builtin()
    campaign = Campaign.objects.create(name=name, gm=gm, clock=head.clock, party_view=head.party_view)
    Campaign.objects.filter(pk=campaign.pk).update(created=head.created)
    campaign.created = head.created

    # Ids first, so that every reference of the log can be turned into one before anything else is written.
    ids: dict[str, dict[str, int]] = {
        "character": _ids(Character, [c.key for c in document.characters]),
        "event": _ids(Event, [e.key for e in document.events]),
        "disease": {},
    }
    site = _site_diseases(document.diseases)
    diseases = [
        _disease(campaign, f"$.diseases[{index}]", entry, site) for index, entry in enumerate(document.diseases)
    ]
    new = [row for row in diseases if row.pk is None]
    for row, pk in zip(new, _reserve(Disease, len(new)), strict=True):
        row.pk = pk
    for index, (entry, row) in enumerate(zip(document.diseases, diseases, strict=True)):
        if row.pk in ids["disease"].values():
            raise invalid_copy(f"$.diseases[{index}].name", _("es la misma enfermedad del sitio que otra de la copia."))
        ids["disease"][entry.key] = row.pk
    for what in ("character", "disease", "event"):
        # Keys that name no row get ids no row has, in the same order (an export numbers them alike again).
        gone = getattr(document.missing, what)
        ids[what].update({key: index - len(gone) for index, key in enumerate(gone)})
    Disease.objects.bulk_create(new)
    # Two active diseases with one name would be ambiguous in the GM's "expose" list, the site's ones included: every
    # active one's names (rules.actions.diseases.name_clash), read in one query.
    active: dict[str, set[int]] = {}
    for disease in Disease.objects.available_in(campaign):
        for said in names_of(disease.name):
            active.setdefault(folded(said), set()).add(disease.pk)
    for index, row in enumerate(diseases):
        own_active = row.campaign_id == campaign.pk and not row.retired
        if own_active and active.get(folded(row.name), set()) - {row.pk}:
            raise invalid_copy(f"$.diseases[{index}].name", _("es el nombre de otra enfermedad activa en la campaña."))

    def to_id(what: str, value: Any) -> Any:
        return ids[what][value]  # every reference was checked to be a key of the document

    rows = [_character(campaign, entry, to_id) for entry in document.characters]
    _with_created(Character, [row for row, _wounds, _illnesses in rows])
    Wound.objects.bulk_create([wound for _row, wounds, _illnesses in rows for wound in wounds])
    Illness.objects.bulk_create([illness for _row, _wounds, illnesses in rows for illness in illnesses])
    entries = zip(document.events, payloads, strict=True)
    _with_created(Event, [_event(campaign, entry, payload, gm, to_id) for entry, payload in entries])
    fields = [name for name in TemplateEntry.__struct_fields__]
    NpcTemplate.objects.bulk_create(
        [NpcTemplate(campaign=campaign, **{name: getattr(t, name) for name in fields}) for t in document.templates]
    )
    GameSession.objects.bulk_create(
        GameSession(
            campaign=campaign,
            number=s.number,
            started_id=to_id("event", s.started),
            ended_id=None if s.ended is None else to_id("event", s.ended),
            shared_at=s.shared_at,
        )
        for s in sessions_of(document, payloads)
    )
    logger.info("campaign %s «%s» imported by %s", campaign.pk, campaign.name, gm.username)
    return campaign


def _reserve(model: type[Campaign | Character | Disease | Event], count: int) -> list[int]:
    """New ids for rows made at once, known before they are written: the log refers to them, and to one another."""
    if count == 0:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s) ORDER BY 1",
            [model._meta.db_table, count],
        )
        return [row[0] for row in cursor.fetchall()]


def _ids(model: type[Character | Event], keys: list[str]) -> dict[str, int]:
    return dict(zip(keys, _reserve(model, len(keys)), strict=True))


def _with_created(model: type[Character | Event], rows: list[Any]) -> None:
    """Insert rows keeping their `created` from the document (an insert sets it to now: auto_now_add)."""
    created = [row.created for row in rows]
    model._base_manager.bulk_create(rows)
    for row, moment in zip(rows, created, strict=True):
        row.created = moment
    if rows:
        mapping.update(rows, ["created"])


def _site_diseases(entries: list[DiseaseEntry]) -> dict[tuple[bool, str], Disease]:
    """The site's diseases the document names, by (built-in, name), read in one query (the first of each, by id)."""
    names = {entry.name for entry in entries if entry.scope != "campaign"}
    found: dict[tuple[bool, str], Disease] = {}
    for disease in Disease.objects.filter(campaign=None, name__in=names).order_by("id"):
        found.setdefault((disease.builtin, disease.name), disease)
    return found


def _disease(campaign: Campaign, path: str, entry: DiseaseEntry, site: dict[tuple[bool, str], Disease]) -> Disease:
    """The campaign's own disease, new; or the site's disease it names (one made anew if this site lacks it)."""
    sheet = {
        "name": entry.name,
        "category": entry.category.value,
        "penalty": entry.penalty,
        "pg_per_week": entry.pg_per_week,
    }
    if entry.scope != "campaign":
        builtin = entry.scope == "builtin"
        found = site.get((builtin, entry.name))
        if found is not None:
            return found
        if builtin:
            raise invalid_copy(f"{path}.name", _("no es una enfermedad del reglamento."))
    return Disease(campaign=campaign, retired=entry.retired, **sheet)


def _character(campaign: Campaign, entry: CharacterEntry, to_id: Any) -> tuple[Character, list[Wound], list[Illness]]:
    row = Character(
        pk=to_id("character", entry.key),
        campaign=campaign,
        name=entry.name,
        constitution=entry.constitution,
        jump=entry.jump,
        heal_wounds=entry.heal_wounds,
        weight_kg=entry.weight_kg,
        notes=entry.notes,
        party_view=entry.party_view,
        rests_between_sessions=entry.rests_between_sessions,
        pg=entry.pg,
        died_at=entry.died_at,
        recovery_progress={kind.value: seconds for kind, seconds in entry.recovery_progress.items()},
        protection=[[category.value, day] for category, day in entry.protection],
        removed=entry.removed,
        created=entry.created,
    )

    def identity(key: str) -> str | None:
        return f"disease:{to_id('disease', key.removeprefix('disease:'))}" if key else None

    # Equal wounds one after another are one row again, as the actions store them (rules.mapping).
    wounds = [
        engine.Wound(w.kind.value, w.remaining, w.treated, w.inflicted_at, identity(w.illness_key))
        for w in entry.wounds
    ]
    runs = mapping.runs(tuple(wounds), [w.amount for w in entry.wounds])
    illnesses = [
        Illness(
            character=row,
            disease_id=to_id("disease", i.disease),
            category=i.category.value,
            penalty=i.penalty,
            pg_per_week=i.pg_per_week,
            since=i.since,
            treated=i.treated,
            medicated=i.medicated,
            cured_at=i.cured_at,
            weeks_charged=i.weeks_charged,
        )
        for i in entry.illnesses
    ]
    return row, [run.row(row) for run in runs], illnesses


def _event(campaign: Campaign, entry: EventEntry, payload: events.Payload, gm: User, to_id: Any) -> Event:
    def states(side: dict[str, Any]) -> dict[str, Any]:
        return {str(to_id("character", key)): with_diseases(msgspec.to_builtins(s), to_id) for key, s in side.items()}

    by_gm, undone_by_gm = entry.actor == gm.username, entry.undone_by == gm.username
    return Event(
        pk=to_id("event", entry.key),
        campaign=campaign,
        action=entry.action.value,
        actor_id=gm.pk if by_gm else None,
        actor_name="" if by_gm else entry.actor or "",
        clock_before=entry.clock_before,
        clock_after=entry.clock_after,
        created=entry.created,
        characters=[to_id("character", key) for key in entry.characters],
        details=events.stored(references.mapped(payload, to_id)),
        before=states(entry.before),
        after=states(entry.after),
        undone=entry.undone,
        undone_at=entry.undone_at,
        undone_by_id=gm.pk if undone_by_gm else None,
        undone_by_name="" if undone_by_gm else entry.undone_by or "",
    )
