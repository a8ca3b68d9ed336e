"""A campaign's own diseases (docs/rules.md §5): its GM adds, edits, retires and brings them back. A disease someone
has had is never deleted, since its episodes point at it; illnesses copy its numbers, so an edit rewrites no history."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields

from django.conf import settings
from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import translation
from django.utils.translation import gettext as _

from campaigns.models import Campaign, Event
from rules import events, notify
from rules.actions.core import ActionError, Actor, Outcome, checked_name, lock_campaign, log, undoes
from rules.models import BUILTIN_NAMES, Disease, Illness, disease_errors, disease_name

NAME_LENGTH = 80


@dataclass(frozen=True)
class DiseaseSheet:
    name: str
    category: str
    penalty: int
    pg_per_week: int | None = None

    @classmethod
    def of(cls, disease: Disease) -> DiseaseSheet:
        return cls(**{field.name: getattr(disease, field.name) for field in fields(cls)})


def folded(name: str) -> str:
    """A disease's name as people tell names apart: "Peste", "peste", "PÉSTE" and "Peste" with an invisible character
    in it (a zero-width space, a soft hyphen) or a run of spaces are one name."""
    decomposed = unicodedata.normalize("NFKD", name)
    seen = (char for char in decomposed if not unicodedata.combining(char) and unicodedata.category(char) != "Cf")
    return " ".join("".join(seen).split()).casefold()


def name_clash(campaign: Campaign, name: str, exclude: int | None = None) -> Disease | None:
    """The active disease whose name (folded) is this one's, if any: two would be ambiguous in the GM's "expose"
    list (the built-in and shared ones and the campaign's own)."""
    return _clash(Disease.objects.available_in(campaign), name, exclude)


def site_name_clash(name: str, exclude: int | None = None) -> Disease | None:
    """An active disease anywhere with this name (folded), for a shared one the site admin saves: a shared disease is
    offered in every campaign, beside each campaign's own."""
    return _clash(Disease.objects.filter(retired=False).select_related("campaign"), name, exclude)


def _clash(diseases: QuerySet[Disease], name: str, exclude: int | None) -> Disease | None:
    wanted = folded(name)
    found = diseases if exclude is None else diseases.exclude(pk=exclude)
    return next((disease for disease in found if wanted in {folded(said) for said in names_of(disease.name)}), None)


def names_of(name: str) -> set[str]:
    """The names a disease goes by: the stored one and, for a built-in one, the name each language shows (a GM's
    own "Plague" beside the built-in "Peste" would read as two "Plague" in English)."""
    if name not in BUILTIN_NAMES:
        return {name}
    said = {name}
    for language, _label in settings.LANGUAGES:
        with translation.override(language):
            said.add(disease_name(name))
    return said


def _checked(campaign: Campaign, sheet: DiseaseSheet, exclude: int | None = None, active: bool = True) -> DiseaseSheet:
    name = checked_name(sheet.name, NAME_LENGTH)
    clash = name_clash(campaign, name, exclude) if active else None
    if clash is not None:
        message = _("Ya hay una enfermedad activa con este nombre en esta campaña: «%(name)s».")
        raise ActionError(message % {"name": clash.shown_name}, "name")
    for field, message in disease_errors(sheet.category, sheet.penalty, sheet.pg_per_week).items():
        raise ActionError(message, field)
    return DiseaseSheet(name, sheet.category, sheet.penalty, sheet.pg_per_week)


def _own(campaign: Campaign, disease: Disease | int) -> Disease:
    # Only the campaign's own diseases: built-ins and globals belong to the site admins.
    disease_id = disease if isinstance(disease, int) else disease.pk
    found = campaign.diseases.select_for_update().filter(pk=disease_id).first()
    if found is None:
        raise ActionError(_("Esa enfermedad no es de esta campaña."), "disease")
    return found


@transaction.atomic
def add_disease(campaign: Campaign | int, sheet: DiseaseSheet, *, by: Actor) -> Outcome:
    campaign = lock_campaign(campaign, by)
    sheet = _checked(campaign, sheet)
    if campaign.diseases.count() >= settings.DISEASES_PER_CAMPAIGN:
        message = _("La campaña ya tiene %(count)s enfermedades propias (y retiradas), el máximo de este sitio.")
        raise ActionError(message % {"count": settings.DISEASES_PER_CAMPAIGN}, "name")
    disease = Disease.objects.create(campaign=campaign, **asdict(sheet))
    return Outcome(log(campaign, by, events.DiseaseAdded(disease=disease.pk, name=disease.name), []), [])


@transaction.atomic
def edit_disease(campaign: Campaign | int, disease: Disease | int, sheet: DiseaseSheet, *, by: Actor) -> Outcome:
    campaign = lock_campaign(campaign, by)
    found = _own(campaign, disease)
    sheet = _checked(campaign, sheet, exclude=found.pk, active=not found.retired)
    before = asdict(DiseaseSheet.of(found))
    changes = {name: (before[name], value) for name, value in asdict(sheet).items() if before[name] != value}
    if not changes:
        return Outcome(None, [])
    for name, (_old, value) in changes.items():
        setattr(found, name, value)
    found.save(update_fields=list(changes))
    payload = events.DiseaseEdited(disease=found.pk, name=found.name, changes=events.DiseaseChanges(**changes))
    return Outcome(log(campaign, by, payload, []), [])


@transaction.atomic
def retire_disease(campaign: Campaign | int, disease: Disease | int, *, by: Actor) -> Outcome:
    """No one can catch it any more; those ill with it stay ill."""
    campaign = lock_campaign(campaign, by)
    found = _own(campaign, disease)
    if found.retired:
        raise ActionError(_("«%(name)s» ya estaba retirada.") % {"name": found.name}, "disease")
    found.retired = True
    found.save(update_fields=["retired"])
    return Outcome(log(campaign, by, events.DiseaseRetired(disease=found.pk, name=found.name), []), [])


@transaction.atomic
def restore_disease(campaign: Campaign | int, disease: Disease | int, *, by: Actor) -> Outcome:
    campaign = lock_campaign(campaign, by)
    found = _own(campaign, disease)
    if not found.retired:
        raise ActionError(_("«%(name)s» ya se puede contraer.") % {"name": found.name}, "disease")
    if name_clash(campaign, found.name, exclude=found.pk) is not None:
        message = _("No se puede recuperar «%(name)s»: ya hay una enfermedad activa con ese nombre.")
        raise ActionError(message % {"name": found.name}, "disease")
    found.retired = False
    found.save(update_fields=["retired"])
    return Outcome(log(campaign, by, events.DiseaseRestored(disease=found.pk, name=found.name), []), [])


# --- undoing them ----------------------------------------------------------------------------------------------------


def _disease_of(campaign: Campaign, disease: events.DiseaseRef) -> Disease:
    found = campaign.diseases.select_for_update().filter(pk=disease).first()
    if found is None:
        raise events.DamagedEntry("details.disease", "not a disease of this campaign")
    return found


@undoes(events.DiseaseAdded)
def undo_disease_added(campaign: Campaign, event: Event, payload: events.DiseaseAdded) -> None:
    disease = _disease_of(campaign, payload.disease)
    # Every later event is undone, so no episode points at it any more; retire it if one somehow still does.
    if disease.illnesses.exists():
        disease.retired = True
        disease.save(update_fields=["retired"])
    else:
        disease.delete()


@undoes(events.DiseaseEdited)
def undo_disease_edited(campaign: Campaign, event: Event, payload: events.DiseaseEdited) -> None:
    disease = _disease_of(campaign, payload.disease)
    changes = events.changed(payload.changes)
    for name, (old, _new) in changes.items():
        setattr(disease, name, old)
    disease.save(update_fields=list(changes))


@undoes(events.DiseaseRetired)
def undo_disease_retired(campaign: Campaign, event: Event, payload: events.DiseaseRetired) -> None:
    campaign.diseases.filter(pk=payload.disease).update(retired=False)


@undoes(events.DiseaseRestored)
def undo_disease_restored(campaign: Campaign, event: Event, payload: events.DiseaseRestored) -> None:
    campaign.diseases.filter(pk=payload.disease).update(retired=True)


# --- the site's shared diseases (the Django admin) --------------------------------------------------------------------


@transaction.atomic
def save_site_disease(disease: Disease) -> None:
    """The site admin saves a shared disease (not a campaign's own: those change only above, logged)."""
    if disease.campaign_id is not None:
        raise ActionError(_("Esa enfermedad es de una campaña: la cambia su narrador."))
    if not disease.retired and (clash := site_name_clash(disease.name, disease.pk)) is not None:
        raise ActionError(name_clash_message(clash), "name")
    disease.save()
    _redraw_campaigns_with([disease.pk])


def name_clash_message(clash: Disease) -> str:
    if clash.campaign is None:
        return _("Ya hay una enfermedad activa con ese nombre: «%(name)s».") % {"name": clash.shown_name}
    message = _("Ya hay una enfermedad activa con ese nombre: «%(name)s», de la campaña «%(campaign)s».")
    return message % {"name": clash.shown_name, "campaign": clash.campaign.name}


@transaction.atomic
def retire_site_diseases(diseases: Iterable[Disease]) -> None:
    ids = [disease.pk for disease in diseases if disease.campaign_id is None]
    Disease.objects.filter(pk__in=ids).update(retired=True)
    _redraw_campaigns_with(ids)


def _redraw_campaigns_with(disease_ids: list[int]) -> None:
    """A shared disease's name shows on the cards and sheets of whoever has had it: each campaign with such an illness
    gets a new version (nothing drawn before is reused) and every screen of it is drawn again, live."""
    having = Illness.objects.filter(disease_id__in=disease_ids).values("character__campaign_id")
    for campaign_id in Campaign.objects.filter(pk__in=having).order_by("pk").values_list("pk", flat=True):
        Campaign.objects.filter(pk=campaign_id).update(version=F("version") + 1)
        notify.send(campaign_id, None)
