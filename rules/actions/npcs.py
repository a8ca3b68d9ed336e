"""Quick NPCs: several characters added in one action ("Guardia 1"…"Guardia 6") and several removed in one, each a
single log entry that one undo reverses. The sheet is checked as for one character (rules.actions.sheet)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from campaigns.models import Campaign, Event
from characters.models import Character, NpcTemplate
from rules import engine, events, mapping
from rules.actions.core import ActionError, Actor, Outcome, checked_name, ids, load, lock_campaign, log, undoes
from rules.actions.sheet import NAME_LENGTH, SHEET_FIELDS, Sheet, bring_back, checked_sheet, revoke_pending
from rules.models import CalledCheck, CallStatus

NUMBER_MARK = "#"  # where the number goes in a name pattern ("Lobo # del bosque"); none: at the end ("Guardia 1")


def numbered_names(pattern: str, count: int, taken: Iterable[str]) -> list[str]:
    """`count` names from a pattern, numbered on from the highest number already taken: "Guardia" with "Guardia 2"
    at the table gives "Guardia 3", "Guardia 4"… A number of any length counts ("Alto 1000000000" is taken too), so
    a name given is never one taken."""
    pattern = pattern.strip()
    if NUMBER_MARK not in pattern:
        pattern = f"{pattern} {NUMBER_MARK}"
    head, _mark, tail = pattern.partition(NUMBER_MARK)
    shape = re.compile(re.escape(head) + r"([0-9]+)" + re.escape(tail))
    # A stored name is at most NAME_LENGTH long, so its number is short enough for int() (which refuses 4,300 digits).
    numbers = (int(m.group(1)) for name in taken if len(name) <= NAME_LENGTH and (m := shape.fullmatch(name)))
    highest = max(numbers, default=0)
    return [f"{head}{number}{tail}" for number in range(highest + 1, highest + 1 + count)]


def _room_for(campaign: Campaign, count: int) -> None:
    """The site's cap on characters in play (CHARACTERS_PER_CAMPAIGN) holds for the whole group or for none."""
    cap = settings.CHARACTERS_PER_CAMPAIGN
    if not 1 <= count <= cap:
        raise ActionError(_("Debe estar entre %(low)s y %(high)s.") % {"low": 1, "high": cap}, "count")
    present = Character.objects.filter(campaign=campaign).count()
    if present + count > cap:
        message = _(
            "La campaña tiene %(present)s personajes y el máximo de este sitio es %(cap)s: caben %(room)s más, "
            "no %(count)s. No se ha añadido ninguno."
        )
        raise ActionError(
            message % {"present": present, "cap": cap, "room": max(cap - present, 0), "count": count}, "count"
        )


@transaction.atomic
def add_characters(campaign: Campaign | int, sheet: Sheet, count: int, *, by: Actor) -> Outcome:
    """`count` new characters from one sheet, unhurt, named from its name as a pattern (numbered_names). The sheet is
    checked as one character's is (the pattern as its name); so is the longest name it gives, the last."""
    campaign = lock_campaign(campaign, by)
    sheet = checked_sheet(campaign, sheet)
    _room_for(campaign, count)
    taken = Character.objects.filter(campaign=campaign).values_list("name", flat=True)
    names = numbered_names(sheet.name, count, taken)
    checked_name(names[-1], NAME_LENGTH)
    fields = {name: getattr(sheet, name) for name in SHEET_FIELDS if name != "name"}
    rows = [Character(campaign=campaign, name=name, pg=engine.max_pg(sheet.constitution), **fields) for name in names]
    Character.objects.bulk_create(rows)
    state = mapping.to_json(engine.Health(sheet.constitution, now=campaign.clock))
    payload = events.CharactersAdded(added=[events.Named(character=row.pk, name=row.name) for row in rows])
    event = log(campaign, by, payload, [row.pk for row in rows], after={str(row.pk): state for row in rows})
    return Outcome(event, rows)


@transaction.atomic
def remove_characters(campaign: Campaign | int, characters: Iterable[Character | int], *, by: Actor) -> Outcome:
    """Take several characters out of the campaign at once, as remove_character does one."""
    campaign = lock_campaign(campaign, by)
    chosen = ids(characters)
    if not chosen:
        raise ActionError(_("Elige al menos un personaje."), "characters")
    rows = [loaded.character for loaded in load(campaign, chosen)]
    revoked: list[int | None] = [pk for row in rows for pk in revoke_pending(row)]
    owed = CalledCheck.objects.select_for_update().filter(character__in=rows, status=CallStatus.PENDING)
    cancelled = list(owed.order_by("id").values_list("pk", flat=True))
    Character.objects.filter(pk__in=chosen).update(removed=True)
    payload = events.CharactersRemoved(
        removed=[events.Named(character=row.pk, name=row.name) for row in rows], revoked=revoked, cancelled=cancelled
    )
    event = log(campaign, by, payload, chosen)
    CalledCheck.objects.filter(pk__in=cancelled).update(status=CallStatus.CANCELLED, closed=event)
    for row in rows:
        row.removed = True
    return Outcome(event, rows)


@undoes(events.CharactersAdded)
def undo_characters_added(campaign: Campaign, event: Event, payload: events.CharactersAdded) -> None:
    Character.everyone.filter(pk__in=event.characters, campaign=campaign).update(removed=True)


@undoes(events.CharactersRemoved)
def undo_characters_removed(campaign: Campaign, event: Event, payload: events.CharactersRemoved) -> None:
    bring_back(campaign, event, payload.revoked, payload.cancelled)


# --- templates: a campaign's quick NPCs' sheets, kept by name ---------------------------------------------------------

TEMPLATE_FIELDS = tuple(events.TemplateValues.__struct_fields__)


def values_of(template: NpcTemplate) -> events.TemplateValues:
    return events.TemplateValues(**{name: getattr(template, name) for name in TEMPLATE_FIELDS})


@transaction.atomic
def save_template(campaign: Campaign | int, sheet: Sheet, count: int, *, by: Actor) -> Outcome:
    """Keep the "Añadir varios" form's values under its name pattern; a template of that name takes the new values."""
    campaign = lock_campaign(campaign, by)
    sheet = checked_sheet(campaign, sheet)
    cap = settings.CHARACTERS_PER_CAMPAIGN
    if not 1 <= count <= cap:
        raise ActionError(_("Debe estar entre %(low)s y %(high)s.") % {"low": 1, "high": cap}, "count")
    values = events.TemplateValues(
        count=count, **{name: getattr(sheet, name) for name in TEMPLATE_FIELDS if name != "count"}
    )
    found = campaign.npc_templates.select_for_update().filter(name=sheet.name).first()
    if found is None and campaign.npc_templates.count() >= settings.NPC_TEMPLATES_PER_CAMPAIGN:
        message = _(
            "La campaña ya tiene %(count)s plantillas, el máximo de este sitio: borra alguna para guardar otra."
        )
        raise ActionError(message % {"count": settings.NPC_TEMPLATES_PER_CAMPAIGN}, "name")
    replaced = None if found is None else values_of(found)
    if replaced == values:
        return Outcome(None, [])
    template = found or NpcTemplate(campaign=campaign)
    for name in TEMPLATE_FIELDS:
        setattr(template, name, getattr(values, name))
    template.save()
    return Outcome(log(campaign, by, events.TemplateChanged(before=replaced, after=values), []), [])


@transaction.atomic
def delete_template(campaign: Campaign | int, template: NpcTemplate | int, *, by: Actor) -> Outcome:
    """Forget a template (an undo keeps it again)."""
    campaign = lock_campaign(campaign, by)
    template_id = template if isinstance(template, int) else template.pk
    found = campaign.npc_templates.select_for_update().filter(pk=template_id).first()
    if found is None:
        raise ActionError(_("Esa plantilla ya no existe."), "template")
    values = values_of(found)
    found.delete()
    return Outcome(log(campaign, by, events.TemplateChanged(before=values), []), [])


def _keep(campaign: Campaign, values: events.TemplateValues) -> None:
    fields = {name: getattr(values, name) for name in TEMPLATE_FIELDS if name != "name"}
    NpcTemplate.objects.update_or_create(campaign=campaign, name=values.name, defaults=fields)


@undoes(events.TemplateChanged)
def undo_template_changed(campaign: Campaign, event: Event, payload: events.TemplateChanged) -> None:
    if payload.before is not None:
        _keep(campaign, payload.before)
    elif payload.after is not None:
        campaign.npc_templates.filter(name=payload.after.name).delete()
