"""What the backup's tests share: a campaign with a long history, its document and changes to it, and the rows an
import may write (equal before and after: it wrote nothing)."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from campaigns.models import Campaign, Event, GameSession, Invitation, Membership, PartyView, Role
from characters.models import SHEET_RANGES, Character
from rules import actions, backup, dice, engine, queries
from rules.actions.core import checked_name
from rules.actions.diseases import NAME_LENGTH as DISEASE_NAME_LENGTH
from rules.actions.sheet import NAME_LENGTH, NOTES_LENGTH
from rules.damage import Attack, Fall, Gas
from rules.models import PENALTY_MIN, PG_PER_WEEK_MAX, CheckKind, Disease, Illness, Wound
from tests.helpers import World, make_user, plague

DEMO = "La Cripta de Hielo"


def rows() -> dict[str, int]:
    """How many rows of each kind a campaign may own: equal before and after means nothing was written."""
    return {
        "campaigns": Campaign.objects.count(),
        "characters": Character.everyone.count(),
        "wounds": Wound.objects.count(),
        "illnesses": Illness.objects.count(),
        "events": Event.objects.count(),
        "diseases": Disease.objects.count(),
        "memberships": Membership.objects.count(),
        "invitations": Invitation.objects.count(),
        "sessions": GameSession.objects.count(),
    }


def named(campaign: Campaign, name: str) -> Character:
    return Character.everyone.get(campaign=campaign, name=name)


def long_history() -> Campaign:
    """The demo campaign after months of play: illnesses of the rules' and of the campaign's own diseases, weekly
    losses, care and medicine, a death, undone events, a disease whose adding was undone after someone caught it, a
    removed character, edited sheets, a claimed invitation, game sessions (one ended and shared, one open, a start
    undone) and years on the clock."""
    call_command("load_demo")
    campaign = Campaign.objects.get(name=DEMO)
    gm = campaign.gm
    aldara, borin, sibila, tomas = (named(campaign, n) for n in ("Aldara", "Borin", "Sibila", "Hermano Tomás"))
    actions.start_session(campaign, by=gm)  # game sessions: the first played, ended and its recap shared
    swamp = actions.add_disease(campaign, actions.DiseaseSheet("Fiebre del pantano", "serious", -3, 2), by=gm)
    swamp_fever = Disease.objects.get(campaign=campaign, name="Fiebre del pantano")
    actions.add_disease(campaign, actions.DiseaseSheet("Tos de la cripta", "common", -1), by=gm)
    actions.retire_disease(campaign, Disease.objects.get(name="Tos de la cripta"), by=gm)
    actions.edit_disease(campaign, swamp_fever, actions.DiseaseSheet("Fiebre del pantano", "serious", -2, 2), by=gm)
    actions.expose(campaign, [aldara], plague(), by=gm, dice_by_character={aldara.pk: 1})
    actions.expose(campaign, [borin, sibila], swamp_fever, by=gm, dice_by_character={borin.pk: 1, sibila.pk: 12})
    actions.advance_clock(campaign, 3 * engine.WEEK, by=gm, not_resting=[borin])
    actions.end_session(campaign, by=gm)
    actions.share_recap(campaign, 1, by=gm)
    aldara_plague = Illness.objects.get(character=aldara)
    actions.medicate(campaign, aldara, aldara_plague, by=gm)
    actions.treat_illness(campaign, aldara, aldara_plague, tomas, by=gm)
    # A disease caught and then undone twice over: the log still names it, and it is gone.
    actions.add_disease(campaign, actions.DiseaseSheet("Mal de altura", "common", -1), by=gm)
    height = Disease.objects.get(name="Mal de altura")
    actions.expose(campaign, [tomas], height, by=gm, dice_by_character={tomas.pk: 1})
    actions.undo(campaign, by=gm)
    actions.undo(campaign, by=gm)
    assert not Disease.objects.filter(name="Mal de altura").exists()
    carla = make_user("carla")
    actions.claim_invitation(Invitation.objects.get(character=sibila).token, carla)
    actions.edit_character(campaign, sibila, actions.Sheet("Sibila", 6, 4, 2, 55, "Tiene jugadora.", None), by=gm)
    hidden = actions.Sheet(**{**vars(actions.Sheet.of(named(campaign, "Borin"))), "party_view": "hidden"})
    actions.edit_character(campaign, borin, hidden, by=gm)  # his player alone sees him
    actions.apply_damage(campaign, [sibila], Attack(amount=1000), by=gm)  # dies
    actions.apply_damage(campaign, [aldara, borin], Gas(turns=2), by=gm)
    actions.undo(campaign, by=gm)
    actions.start_session(campaign, by=gm)
    actions.undo(campaign, by=gm)  # a start undone: session 2 is the next one again
    actions.start_session(campaign, by=gm)  # and still open at the end
    actions.share_recap(campaign, 2, by=gm)
    actions.share_recap(campaign, 2, by=gm, shared=False)
    actions.remove_character(campaign, tomas, by=gm)
    actions.edit_campaign(campaign, name="La Cripta de Hielo (II)", gm=gm, party_view="exact", by=gm)
    actions.advance_clock(campaign, 2 * engine.YEAR + 5 * engine.DAY + 17, by=gm)
    del swamp
    return Campaign.objects.get(pk=campaign.pk)


def through_json(document: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(document))


def text(document: dict[str, Any]) -> str:
    """The document as its file holds it (the export page's json.dumps)."""
    return json.dumps(document, ensure_ascii=False, indent=1)


def upload(document: dict[str, Any] | bytes, name: str = "copia.json") -> dict[str, SimpleUploadedFile]:
    data = document if isinstance(document, bytes) else json.dumps(document).encode()
    return {"file": SimpleUploadedFile(name, data, content_type="application/json")}


def changed(change: Callable[[dict[str, Any]], object]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def apply(document: dict[str, Any]) -> dict[str, Any]:
        document = copy.deepcopy(document)
        change(document)
        return document

    return apply


def first_event(document: dict[str, Any], action: str) -> dict[str, Any]:
    return next(e for e in document["events"] if e["action"] == action)


def last_event(document: dict[str, Any], action: str) -> dict[str, Any]:
    return next(e for e in reversed(document["events"]) if e["action"] == action)


def a_state_with_wounds(document: dict[str, Any]) -> dict[str, Any]:
    """A character's state before the latest event, one whose wounds are still rows when that event is undone."""
    return next(state for state in document["events"][-1]["before"].values() if state["wounds"])


GONE_ILLNESS = {
    "category": "common",
    "penalty": -1,
    "pg_per_week": 0,
    "treated": False,
    "medicated": False,
    "since": 0,
    "name": "Mal de altura",
    "key": "disease:d4",  # in the file's "missing": its adding was undone
    "cured_at": None,
    "weeks_charged": 0,
}


def alive(document: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in document["characters"] if c["died_at"] is None and not c["removed"])


def refusal(document: dict[str, Any], importer: Any = None) -> str:
    """The message an import of the document gives, after checking that it wrote nothing."""
    before = rows()
    importer = importer or get_user_model().objects.get_or_create(username="importadora")[0]
    with pytest.raises(actions.ActionError) as refused:
        backup.import_campaign(document, importer)
    assert rows() == before
    return refused.value.message


def campaign_gm(document: dict[str, Any]) -> Any:
    return get_user_model().objects.get(username=document["events"][0]["actor"])


def story(world: World) -> Campaign:
    """Campaign A with something of everything: diseases of its own and of the rules, weekly losses, care, a death, a
    claimed link, a co-GM, called checks answered and called off, rolled damage, a group of NPCs, a removal, edits,
    undos (one of a disease caught by someone), templates, sessions, and a site's disease."""
    a, gm = world.campaign_a, world.gm_a
    aldara, borin, tomas = world.char_a1, world.char_a2, world.npc_a
    Character.objects.filter(pk=tomas.pk).update(heal_wounds=6)
    Disease.objects.create(name="Viruela del norte", category="common", penalty=-1)  # the site's own
    actions.add_disease(a, actions.DiseaseSheet("Fiebre del pantano", "serious", -3, 2), by=gm)
    swamp = Disease.objects.get(campaign=a)
    actions.apply_damage(a, [aldara, borin], Attack(amount=9), by=gm)
    actions.apply_damage(a, [aldara], Fall(height_m=3, dice={aldara.pk: 2}), by=gm)
    actions.expose(a, [aldara], Disease.objects.get(name="Peste"), by=gm, dice_by_character={aldara.pk: 1})
    actions.expose(a, [borin], swamp, by=gm, dice_by_character={borin.pk: 1})
    actions.expose(a, [tomas], Disease.objects.get(name="Viruela del norte"), by=gm, dice_by_character={tomas.pk: 1})
    actions.advance_clock(a, 2 * engine.WEEK + 3 * engine.HOUR, by=gm, not_resting=[borin])
    actions.treat_wounds(a, aldara, tomas, by=gm)
    actions.medicate(a, aldara, Illness.objects.filter(character=aldara).first(), by=gm)
    actions.edit_disease(a, swamp, actions.DiseaseSheet("Fiebre del pantano", "serious", -2, 2), by=gm)
    actions.claim_invitation(world.invite_a.token, make_user("carla"))
    actions.advance_clock(a, 5 * engine.HOUR + 17, by=gm)
    eira = actions.add_character(a, actions.Sheet("Eira", 3), by=gm).characters[0]
    actions.apply_damage(a, [eira], Attack(amount=40), by=gm)  # dies
    actions.edit_character(a, eira, replace(actions.Sheet.of(eira), constitution=5), by=gm)
    actions.apply_damage(a, [borin], Gas(turns=2), by=gm)
    actions.undo(a, by=gm)
    actions.apply_damage(a, [borin], Attack(expression="1d6+2"), by=gm)
    actions.add_characters(a, actions.Sheet("Guardia", 5), 2, by=gm)
    actions.call_check(a, [borin], actions.Call(CheckKind.FALL, height_m=4), by=gm)
    actions.answer_check(a, queries.pending_checks(a)[0], by=gm, die=7)
    actions.call_check(a, [borin], actions.Call(CheckKind.RESISTANCE, disease=plague()), by=gm)
    actions.cancel_check(a, queries.pending_checks(a), by=gm)
    actions.create_co_gm_invitation(a, by=gm)
    actions.claim_invitation(Invitation.objects.get(campaign=a, role=Role.GM).token, world.outsider)
    actions.remove_character(a, tomas, by=gm)
    actions.edit_campaign(a, name="La Cripta", party_view="exact", by=gm)
    actions.start_session(a, by=gm)
    actions.save_template(a, actions.Sheet("Guardia", 6, jump=2), 4, by=gm)
    actions.save_template(a, actions.Sheet("Guardia", 7, notes="Lanzas."), 5, by=gm)
    actions.save_template(a, actions.Sheet("Guardia", 7, notes="Lanzas.", party_view="hidden"), 5, by=gm)
    actions.save_template(a, actions.Sheet("Bandido", 5), 3, by=gm)
    actions.delete_template(a, a.npc_templates.get(name="Bandido"), by=gm)
    actions.save_template(a, actions.Sheet("Lobo", 3, weight_kg=40), 2, by=gm)
    actions.delete_template(a, a.npc_templates.get(name="Lobo"), by=gm)
    actions.undo(a, by=gm)
    actions.end_session(a, by=gm)
    actions.share_recap(a, 1, by=gm)
    actions.advance_clock(a, engine.DAY - 1, by=gm)
    return Campaign.objects.get(pk=a.pk)


def assert_within_limits(campaign: Campaign) -> None:
    """Every name and number in the campaign's rows and log is one the actions take (issue 48): each name as
    checked_name takes it with its kind's length, each number in the range its form and action give, every collection
    within the site's caps. Said here from the actions, field by field name — not from rules.backup.limits."""
    problems: list[str] = []

    def name(where: str, value: Any, longest: int) -> None:
        try:
            ok = isinstance(value, str) and value == value.strip() and len(value) <= longest
            ok = ok and bool(checked_name(value, longest))
        except actions.ActionError:
            ok = False
        if not ok:
            problems.append(f"{where}: {value!r}")

    def within(where: str, value: Any, low: int, high: int) -> None:
        if type(value) is not int or not low <= value <= high:
            problems.append(f"{where}: {value!r} not in {low}..{high}")

    name("campaign", campaign.name, NAME_LENGTH)
    for character in Character.everyone.filter(campaign=campaign):
        name(f"character {character.pk}", character.name, NAME_LENGTH)
    for template in campaign.npc_templates.all():
        name(f"template {template.pk}", template.name, NAME_LENGTH)
        within(f"template {template.pk}.count", template.count, 1, django_settings.CHARACTERS_PER_CAMPAIGN)
    for disease in Disease.objects.filter(campaign=campaign):
        name(f"disease {disease.pk}", disease.name, DISEASE_NAME_LENGTH)
    assert campaign.npc_templates.count() <= django_settings.NPC_TEMPLATES_PER_CAMPAIGN
    assert Disease.objects.filter(campaign=campaign).count() <= django_settings.DISEASES_PER_CAMPAIGN
    assert campaign.game_sessions.count() <= django_settings.SESSIONS_PER_CAMPAIGN
    for event in Event.objects.filter(campaign=campaign).order_by("id"):
        diseases = event.action.startswith("disease_")
        walk_payload(f"{event.action} {event.pk}", event.details, "", diseases, name, within)
    assert problems == [], problems


def walk_payload(where: str, value: Any, key: str, diseases: bool, name: Any, within: Any) -> None:
    """Each text and number of an entry's details, judged by the member it is under (`key`)."""
    at = f"{where}.{key}"
    if isinstance(value, dict):
        for member, item in value.items():
            # a character's PG or damage is under its id: judged as the member that holds them
            inner = key if member.isdigit() else member
            walk_payload(f"{where}.{key}" if member.isdigit() else where, item, inner, diseases, name, within)
        return
    if isinstance(value, list):
        for item in value:
            walk_payload(where, item, key, diseases, name, within)
        return
    if key == "undone" or value is None or isinstance(value, bool):
        return
    if key in ("name", "healer_name") and not where.startswith("co_gm"):
        name(at, value, DISEASE_NAME_LENGTH if diseases else NAME_LENGTH)
    elif key == "disease" and isinstance(value, str):
        name(at, value, DISEASE_NAME_LENGTH)
    elif key in ("player", "players", "by", "gms") or (key == "name" and where.startswith("co_gm")):
        if value != "" and not (isinstance(value, str) and re.fullmatch(r"[\w.@+-]{1,150}|#[0-9]+", value)):
            name(at, None, 0)  # not a username an account could have
    elif key in ("notes", "expression"):
        low, high = (0, NOTES_LENGTH) if key == "notes" else (1, dice.MAX_EXPRESSION_LENGTH)
        if not isinstance(value, str) or not low <= len(value) <= high:
            name(at, None, 0)
    elif key == "party_view":
        if value not in ("", *PartyView.values):
            name(at, None, 0)
    elif key in SHEET_RANGES:
        within(at, value, *SHEET_RANGES[key])
    elif key in ("speed_kmh", "height_m", "turns", "difficulty"):
        within(at, value, *engine.LIMITS[key])
    elif key == "seconds":
        within(at, value, *engine.LIMITS["advance"])
    elif key == "count":
        within(at, value, 1, django_settings.CHARACTERS_PER_CAMPAIGN)
    elif key == "penalty":
        within(at, value, PENALTY_MIN, 0)
    elif key == "pg_per_week":
        within(at, value, 1, PG_PER_WEEK_MAX)
    elif key == "pg":
        within(at, value, 0, engine.max_pg(engine.CON_MAX))
    elif key == "damage":
        within(at, value, 0, engine.fall_damage(engine.LIMITS["height_m"][1], engine.LIMITS["weight_kg"][1]))
    elif key == "die":
        within(at, value, 1, engine.FALL_DIE)
    elif key == "number":
        within(at, value, 1, django_settings.SESSIONS_PER_CAMPAIGN)
