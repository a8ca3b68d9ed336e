"""The log in words for the table's other changes (rules.events.table): characters added, edited and removed,
invitation links, campaign diseases, the campaign's settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from play.party import view_words
from rules import events, mapping
from rules.models import Category

if TYPE_CHECKING:
    pass
from play.log.story import Story, words

SHEET_LABELS = {
    "name": gettext_lazy("Nombre"),
    "player_id": gettext_lazy("Jugador"),
    "constitution": gettext_lazy("CON"),
    "jump": gettext_lazy("Saltar"),
    "heal_wounds": gettext_lazy("Curar Heridas"),
    "weight_kg": gettext_lazy("Peso (kg)"),
    "notes": gettext_lazy("Notas"),
    "party_view": gettext_lazy("Lo que ven los demás jugadores"),
    "gm_id": gettext_lazy("Narrador"),
    "category": gettext_lazy("Categoría"),
    "penalty": gettext_lazy("Penalización"),
    "pg_per_week": gettext_lazy("PG por semana"),
}


def changes_lines(
    changes: dict[str, tuple[Any, Any]], people: dict[str, tuple[str, str]], leave_out: tuple[str, ...] = ()
) -> list[str]:
    """One line per changed field: "CON: 8 → 7"; people by name, notes without their text."""
    lines = []
    order = list(SHEET_LABELS)
    for field in sorted(changes, key=lambda name: order.index(name) if name in order else len(order)):
        if field in leave_out:
            continue
        if field == "notes":
            lines.append(_("Notas cambiadas"))
            continue
        old, new = (in_words(field, value) for value in changes[field])
        if field in people:
            old, new = (name or _("nadie") for name in people[field])
        label = SHEET_LABELS.get(field, field)
        lines.append(_("%(field)s: %(old)s → %(new)s") % {"field": label, "old": old, "new": new})
    return lines


def in_words(field: str, value: Any) -> str:
    if field == "party_view":
        return view_words(value)  # a character's "" is the campaign's: said in words too
    if value is None or value == "":
        return "—"
    if field == "category" and value in Category.values:
        return str(Category(value).label)
    return str(value)


@words(events.CharacterAdded)
def character_added(story: Story, payload: events.CharacterAdded) -> tuple[str, list[str]]:
    title = _("Nuevo personaje: %(name)s") % {"name": payload.name}
    return title, [_("Lo juega %(player)s") % {"player": payload.player}] if payload.player else []


@words(events.CharacterEdited)
def character_edited(story: Story, payload: events.CharacterEdited) -> tuple[str, list[str]]:
    title = _("Hoja de %(name)s editada") % {"name": payload.name}
    players = {"player_id": payload.players} if payload.players is not None else {}
    changes = changes_lines(events.changed(payload.changes), players)
    return title, changes + pg_lines_of_edit(story) + story.deaths()


def pg_lines_of_edit(story: Story) -> list[str]:
    lines = []
    for pk, after in story.event.after.items():
        before = story.event.before.get(pk)
        if before is not None and story.mine(pk):
            old = mapping.from_json(before)
            new = mapping.from_json(after)
            if (old.pg, old.max_pg) != (new.pg, new.max_pg):
                lines.append(
                    _("%(name)s: %(before)s → %(after)s PG")
                    % {"name": story.name(pk), "before": f"{old.pg}/{old.max_pg}", "after": f"{new.pg}/{new.max_pg}"}
                )
    return lines


@words(events.CharacterRemoved)
def character_removed(story: Story, payload: events.CharacterRemoved) -> tuple[str, list[str]]:
    return _("%(name)s sale de la campaña") % {"name": payload.name}, []


@words(events.InvitationCreated)
def invitation_created(story: Story, payload: events.InvitationCreated) -> tuple[str, list[str]]:
    return _("Enlace de invitación para %(name)s") % {"name": payload.name}, []


@words(events.InvitationRevoked)
def invitation_revoked(story: Story, payload: events.InvitationRevoked) -> tuple[str, list[str]]:
    return _("Enlace de invitación de %(name)s anulado") % {"name": payload.name}, []


@words(events.InvitationClaimed)
def invitation_claimed(story: Story, payload: events.InvitationClaimed) -> tuple[str, list[str]]:
    return _("%(player)s juega con %(name)s") % {"player": payload.player, "name": payload.name}, []


@words(events.DiseaseAdded)
def disease_added(story: Story, payload: events.DiseaseAdded) -> tuple[str, list[str]]:
    return _("Nueva enfermedad: %(name)s") % {"name": payload.name}, []


@words(events.DiseaseEdited)
def disease_edited(story: Story, payload: events.DiseaseEdited) -> tuple[str, list[str]]:
    return _("Enfermedad %(name)s editada") % {"name": payload.name}, changes_lines(events.changed(payload.changes), {})


@words(events.DiseaseRetired)
def disease_retired(story: Story, payload: events.DiseaseRetired) -> tuple[str, list[str]]:
    return _("Enfermedad %(name)s retirada") % {"name": payload.name}, []


@words(events.DiseaseRestored)
def disease_restored(story: Story, payload: events.DiseaseRestored) -> tuple[str, list[str]]:
    return _("Enfermedad %(name)s disponible de nuevo") % {"name": payload.name}, []


@words(events.CampaignEdited)
def campaign_edited(story: Story, payload: events.CampaignEdited) -> tuple[str, list[str]]:
    gms = {"gm_id": payload.gms} if payload.gms is not None else {}
    lines = changes_lines(events.changed(payload.changes), gms, leave_out=("party_view",))
    if payload.changes.party_view is not None:
        what = view_words(payload.changes.party_view[1])
        lines.append(_("Los jugadores ven de los demás: %(what)s") % {"what": what})
    return _("Campaña editada"), lines
