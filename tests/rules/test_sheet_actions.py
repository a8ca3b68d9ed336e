"""The actions beyond health (issue 9): adding, editing and removing characters, invitation links, the campaign's
name and GM, and its diseases. Each is locked, logged with one event, refused with a message that changes nothing,
and undoable like any other action; undo names the event it undoes."""

from dataclasses import replace

import pytest

from campaigns.models import Event, Invitation, Membership
from characters.models import Character
from play.log.pages import table_log
from rules import actions, queries
from rules.damage import Attack
from rules.models import Disease, Illness, Wound
from tests.helpers import World, client_for, full_snapshot, log_mismatches, plague, refused, reload, unchanged


def sheet_of(character: Character, **changes) -> actions.Sheet:
    return replace(actions.Sheet.of(Character.everyone.get(pk=character.pk)), **changes)


def edit(world: World, character: Character, **changes) -> actions.Outcome:
    return actions.edit_character(world.campaign_a, character, sheet_of(character, **changes), by=world.gm_a)


def entry(world: World, event: Event):
    """The log entry of one event, as the GM's table writes it."""
    [found] = [entry for entry in table_log(world.campaign_a) if entry.event.pk == event.pk]
    return found


def undo_latest(world: World) -> actions.Outcome:
    return actions.undo(world.campaign_a, by=world.gm_a, event=queries.latest_undoable(world.campaign_a))


# --- adding ----------------------------------------------------------------------------------------------------------


def test_adding_a_character_is_logged_and_undone_by_removing_it(world: World):
    sheet = actions.Sheet("Eira", 9, jump=3, heal_wounds=1, weight_kg=60, player_id=world.player_a.pk)
    outcome = actions.add_character(world.campaign_a, sheet, by=world.gm_a)
    [eira] = outcome.characters
    assert (eira.name, eira.pg, eira.max_pg, eira.player, eira.removed) == ("Eira", 90, 90, world.player_a, False)
    assert (outcome.event.action, outcome.event.characters) == ("character_added", [eira.pk])
    line = entry(world, outcome.event)
    assert (line.title, line.lines) == ("Nuevo personaje: Eira", ["Lo juega player_a"])
    assert log_mismatches(world.campaign_a) == []

    undo_latest(world)
    assert not Character.objects.filter(pk=eira.pk).exists()
    assert Character.everyone.get(pk=eira.pk).removed
    assert log_mismatches(world.campaign_a) == []


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"name": "   "}, "name"),
        ({"name": "x" * 101}, "name"),
        ({"constitution": 0}, "constitution"),
        ({"constitution": 31}, "constitution"),
        ({"jump": -1}, "jump"),
        ({"heal_wounds": 31}, "heal_wounds"),
        ({"weight_kg": 501}, "weight_kg"),
        ({"notes": "x" * 5001}, "notes"),
        ({"player_id": "outsider"}, "player"),
    ],
)
def test_a_bad_sheet_is_refused_on_add_and_on_edit(world: World, changes: dict, field: str):
    if changes.get("player_id") == "outsider":
        changes = {"player_id": world.outsider.pk}  # not a member of the campaign: only an invitation gets one
    sheet = replace(actions.Sheet("Eira", 9), **changes)
    error = refused(world, lambda: actions.add_character(world.campaign_a, sheet, by=world.gm_a))
    assert error.field == field
    error = refused(world, lambda: edit(world, world.char_a1, **changes))
    assert error.field == field


def test_a_campaign_at_its_character_cap_refuses_another_and_says_so(world: World, settings):
    settings.CHARACTERS_PER_CAMPAIGN = 3  # campaign A has Aldara, Borin and Tomás
    error = refused(world, lambda: actions.add_character(world.campaign_a, actions.Sheet("Eira", 9), by=world.gm_a))
    assert "3 personajes, el máximo" in error.message
    page = client_for(world.gm_a).post(
        f"/campaigns/{world.campaign_a.pk}/characters/new/",
        {"name": "Eira", "constitution": 9, "jump": 0, "heal_wounds": 0, "weight_kg": 70},
    )
    assert page.status_code == 400 and "el máximo de este sitio" in page.text, page.context["form"].errors
    actions.remove_character(world.campaign_a, world.npc_a, by=world.gm_a)  # a removed one does not count
    assert actions.add_character(world.campaign_a, actions.Sheet("Eira", 9), by=world.gm_a).characters


def test_the_name_is_trimmed(world: World):
    outcome = actions.add_character(world.campaign_a, actions.Sheet("  Eira  ", 9), by=world.gm_a)
    assert outcome.characters[0].name == "Eira"


# --- editing ---------------------------------------------------------------------------------------------------------


def test_an_edit_writes_only_what_changed_so_later_damage_is_kept(world: World):
    """The lost update of the issue, one step at a time: the form was read, damage came, then the form was saved."""
    form = sheet_of(world.char_a1, name="Aldara la Roja", jump=4)
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=30), by=world.gm_a)
    outcome = actions.edit_character(world.campaign_a, world.char_a1, form, by=world.gm_a)
    aldara = reload(world.char_a1)
    assert (aldara.name, aldara.jump, aldara.pg) == ("Aldara la Roja", 4, 50)
    assert outcome.event.details["changes"] == {"name": ["Aldara", "Aldara la Roja"], "jump": [0, 4]}
    line = entry(world, outcome.event)
    assert line.title == "Hoja de Aldara la Roja editada"
    assert sorted(line.lines) == ["Nombre: Aldara → Aldara la Roja", "Saltar: 0 → 4"]
    assert log_mismatches(world.campaign_a) == []


def test_every_sheet_field_is_logged_and_undone(world: World):
    outcome = edit(world, world.char_a2, name="Borin II", constitution=10, jump=2, heal_wounds=3, weight_kg=90)
    outcome = edit(world, world.char_a2, notes="Herrero.", player_id=world.player_a.pk)
    assert entry(world, outcome.event).lines == ["Jugador: player_a2 → player_a", "Notas cambiadas"]  # form order
    undo_latest(world)
    undo_latest(world)
    borin = reload(world.char_a2)
    assert actions.Sheet.of(borin) == actions.Sheet("Borin", 12, player_id=world.player_a2.pk)
    assert borin.pg == 120


def test_editing_a_removed_or_foreign_character_is_refused(world: World):
    actions.remove_character(world.campaign_a, world.npc_a, by=world.gm_a)
    for character in (world.npc_a, world.char_b):
        error = refused(world, lambda c=character: edit(world, c, name="Otro"))
        assert error.message == "Ese personaje no pertenece a esta campaña."


def test_giving_a_character_a_player_cancels_its_pending_link(world: World):
    assert world.invite_a.pending
    outcome = edit(world, world.npc_a, player_id=world.player_a2.pk)
    world.invite_a.refresh_from_db()
    assert not world.invite_a.pending and world.invite_a.revoked_at is not None
    assert outcome.event.details["revoked"] == [world.invite_a.pk]
    assert entry(world, outcome.event).lines == ["Jugador: nadie → player_a2"]
    with pytest.raises(actions.InvitationGone):
        actions.claim_invitation(world.invite_a.token, world.outsider)
    assert reload(world.npc_a).player == world.player_a2

    undo_latest(world)  # the player goes, and the link is pending again
    world.invite_a.refresh_from_db()
    assert reload(world.npc_a).player is None and world.invite_a.pending


def test_taking_the_player_away_keeps_no_link_alive(world: World):
    outcome = edit(world, world.char_a1, player_id=None)
    assert outcome.event.details["revoked"] == []
    assert entry(world, outcome.event).lines == ["Jugador: player_a → nadie"]


# --- removing --------------------------------------------------------------------------------------------------------


def test_removing_a_character_keeps_its_history_and_undo_brings_it_back(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=12), by=world.gm_a)
    rows = list(Wound.objects.filter(character=world.npc_a).values())
    outcome = actions.remove_character(world.campaign_a, world.npc_a, by=world.gm_a)
    assert not Character.objects.filter(pk=world.npc_a.pk).exists()
    tomas = Character.everyone.get(pk=world.npc_a.pk)
    assert tomas.removed and tomas.pg == 38
    assert list(Wound.objects.filter(character=tomas).values()) == rows
    world.invite_a.refresh_from_db()
    assert not world.invite_a.pending  # its link is no use any more
    titles = [line.title for line in table_log(world.campaign_a)]
    assert titles[0] == "Tomás sale de la campaña"
    assert any("Tomás pierde 12 PG (50 → 38)" in line.lines for line in table_log(world.campaign_a))
    # Actions no longer reach it.
    error = refused(world, lambda: actions.apply_damage(world.campaign_a, [tomas], Attack(amount=1), by=world.gm_a))
    assert error.message == "Ese personaje no pertenece a esta campaña."
    advance = actions.advance_clock(world.campaign_a, 3600, by=world.gm_a)
    assert tomas.pk not in advance.event.characters
    undo_latest(world)  # the advance

    actions.undo(world.campaign_a, by=world.gm_a, event=outcome.event)
    tomas = reload(world.npc_a)
    assert (tomas.removed, tomas.pg) == (False, 38)
    world.invite_a.refresh_from_db()
    assert world.invite_a.pending
    assert log_mismatches(world.campaign_a) == []


def test_removing_twice_is_refused(world: World):
    actions.remove_character(world.campaign_a, world.npc_a, by=world.gm_a)
    error = refused(world, lambda: actions.remove_character(world.campaign_a, world.npc_a, by=world.gm_a))
    assert error.message == "Ese personaje no pertenece a esta campaña."


# --- invitations -----------------------------------------------------------------------------------------------------


def test_a_link_is_logged_and_undone(world: World):
    eira = actions.add_character(world.campaign_a, actions.Sheet("Eira", 9), by=world.gm_a).characters[0]
    outcome = actions.create_invitation(world.campaign_a, eira, by=world.gm_a)
    link = Invitation.objects.get(character=eira)
    assert outcome.event.details["invitation"] == link.pk and link.pending
    assert entry(world, outcome.event).title == "Enlace de invitación para Eira"
    undo_latest(world)
    assert not Invitation.objects.filter(pk=link.pk).exists()


def test_no_link_for_a_character_that_has_a_player(world: World):
    error = refused(world, lambda: actions.create_invitation(world.campaign_a, world.char_a1, by=world.gm_a))
    assert (error.field, error.message) == ("character", "Aldara ya tiene jugador: no necesita invitación.")


def test_a_second_link_for_the_same_character_is_the_pending_one(world: World):
    before = unchanged(world)
    outcome = actions.create_invitation(world.campaign_a, world.npc_a, by=world.gm_a)
    assert outcome.event is None and unchanged(world) == before


def test_revoking_a_link_is_logged_and_undone(world: World):
    outcome = actions.revoke_invitation(world.campaign_a, world.invite_a, by=world.gm_a)
    world.invite_a.refresh_from_db()
    assert not world.invite_a.pending
    assert entry(world, outcome.event).title == "Enlace de invitación de Tomás anulado"
    with pytest.raises(actions.InvitationGone):
        actions.claim_invitation(world.invite_a.token, world.outsider)
    error = refused(world, lambda: actions.revoke_invitation(world.campaign_a, world.invite_a, by=world.gm_a))
    assert (error.field, error.message) == ("invitation", "Esa invitación ya no está pendiente.")
    undo_latest(world)
    world.invite_a.refresh_from_db()
    assert world.invite_a.pending


def test_another_campaigns_link_cannot_be_revoked_here(world: World):
    foreign = Invitation.objects.create(campaign=world.campaign_b, character=world.char_b)
    error = refused(world, lambda: actions.revoke_invitation(world.campaign_a, foreign, by=world.gm_a))
    assert error.message == "Esa invitación ya no está pendiente."


def test_a_claim_is_logged_and_undo_hands_the_character_back(world: World):
    start = full_snapshot(world.campaign_a)
    outcome = actions.claim_invitation(world.invite_a.token, world.outsider)
    assert (outcome.event.action, outcome.event.actor) == ("invitation_claimed", world.outsider)
    assert entry(world, outcome.event).title == "outsider juega con Tomás"
    assert reload(world.npc_a).player == world.outsider
    assert Membership.objects.filter(campaign=world.campaign_a, user=world.outsider).exists()
    with pytest.raises(actions.InvitationGone):
        actions.claim_invitation(world.invite_a.token, world.gm_b)  # claimed: it hands over nothing more

    undo_latest(world)
    assert reload(world.npc_a).player is None
    assert not Membership.objects.filter(campaign=world.campaign_a, user=world.outsider).exists()
    world.invite_a.refresh_from_db()
    assert world.invite_a.pending
    assert full_snapshot(world.campaign_a) == start


def test_undoing_a_members_claim_keeps_their_membership(world: World):
    actions.claim_invitation(world.invite_a.token, world.player_a)
    undo_latest(world)
    assert Membership.objects.filter(campaign=world.campaign_a, user=world.player_a).exists()
    assert reload(world.npc_a).player is None


def test_the_gm_cannot_claim_and_an_unknown_link_is_gone(world: World):
    error = refused(world, lambda: actions.claim_invitation(world.invite_a.token, world.gm_a))
    assert not isinstance(error, actions.InvitationGone)
    with pytest.raises(actions.InvitationGone):
        actions.claim_invitation("no-such-token", world.outsider)


def test_a_link_of_a_character_that_got_a_player_another_way_is_gone(world: World):
    Character.objects.filter(pk=world.npc_a.pk).update(player=world.player_a)  # e.g. a row written by hand
    before = unchanged(world)
    with pytest.raises(actions.InvitationGone):
        actions.claim_invitation(world.invite_a.token, world.outsider)
    assert unchanged(world) == before


# --- the campaign ----------------------------------------------------------------------------------------------------


def test_renaming_a_campaign_and_changing_its_gm_is_logged_and_undone(world: World):
    outcome = actions.edit_campaign(world.campaign_a, name="La Cripta", gm=world.gm_b, by=None)
    world.campaign_a.refresh_from_db()
    assert (world.campaign_a.name, world.campaign_a.gm) == ("La Cripta", world.gm_b)
    line = entry(world, outcome.event)
    assert (line.title, line.lines) == ("Campaña editada", ["Nombre: A → La Cripta", "Narrador: gm_a → gm_b"])
    # gm_a runs it no more: its undo is the new owner's (or the admin's).
    with pytest.raises(actions.ActionError, match="Ya no llevas esta campaña"):
        undo_latest(world)
    actions.undo(world.campaign_a, by=world.gm_b, event=outcome.event)
    world.campaign_a.refresh_from_db()
    assert (world.campaign_a.name, world.campaign_a.gm) == ("A", world.gm_a)


def test_a_campaign_edit_that_changes_nothing_logs_nothing(world: World):
    before = unchanged(world)
    assert actions.edit_campaign(world.campaign_a, name="A", gm=world.gm_a, by=None).event is None
    assert unchanged(world) == before
    error = refused(world, lambda: actions.edit_campaign(world.campaign_a, name=" ", gm=world.gm_a, by=None))
    assert error.field == "name"


# --- diseases --------------------------------------------------------------------------------------------------------

ALTITUDE = actions.DiseaseSheet("Mal de altura", "common", -1)


def own_disease(world: World) -> Disease:
    outcome = actions.add_disease(world.campaign_a, ALTITUDE, by=world.gm_a)
    return Disease.objects.get(pk=outcome.event.details["disease"])


def test_a_disease_added_edited_retired_and_restored_is_logged_and_each_undone(world: World):
    start = full_snapshot(world.campaign_a)
    disease = own_disease(world)
    assert (disease.campaign, disease.name, disease.retired) == (world.campaign_a, "Mal de altura", False)
    serious = actions.DiseaseSheet("Mal de las cumbres", "serious", -3, 2)
    edited = actions.edit_disease(world.campaign_a, disease, serious, by=world.gm_a)
    assert entry(world, edited.event).title == "Enfermedad Mal de las cumbres editada"
    actions.retire_disease(world.campaign_a, disease, by=world.gm_a)
    actions.restore_disease(world.campaign_a, disease, by=world.gm_a)
    titles = [line.title for line in table_log(world.campaign_a)]
    assert titles == [
        "Enfermedad Mal de las cumbres disponible de nuevo",
        "Enfermedad Mal de las cumbres retirada",
        "Enfermedad Mal de las cumbres editada",
        "Nueva enfermedad: Mal de altura",
    ]
    undo_latest(world)
    assert Disease.objects.get(pk=disease.pk).retired
    undo_latest(world)
    assert not Disease.objects.get(pk=disease.pk).retired
    undo_latest(world)
    assert Disease.objects.get(pk=disease.pk).name == "Mal de altura"
    undo_latest(world)
    assert not Disease.objects.filter(pk=disease.pk).exists()
    assert full_snapshot(world.campaign_a) == start


def test_a_disease_edit_is_logged_in_words(world: World):
    disease = own_disease(world)
    serious = actions.DiseaseSheet("Mal de las cumbres", "serious", -3, 2)
    lines = entry(world, actions.edit_disease(world.campaign_a, disease, serious, by=world.gm_a).event).lines
    assert "Nombre: Mal de altura → Mal de las cumbres" in lines and "Penalización: -1 → -3" in lines
    # The GM reads words, not stored values: the category by its name, an empty weekly loss not as "None".
    assert "Categoría: común → grave" in lines and len(lines) == 4
    assert not any("None" in line or "serious" in line for line in lines), lines


@pytest.mark.parametrize(
    "sheet, field, message",
    [
        (actions.DiseaseSheet("Gripe", "common", -1), "name", "Ya hay una enfermedad activa con este nombre"),
        (actions.DiseaseSheet("Nueva", "serious", -1), "pg_per_week", "entre 1 y 100 PG por semana"),
        (actions.DiseaseSheet("Nueva", "serious", -1, 101), "pg_per_week", "entre 1 y 100 PG por semana"),
        (actions.DiseaseSheet("Nueva", "common", -1, 2), "pg_per_week", "deja este campo vacío"),
        (actions.DiseaseSheet("Nueva", "common", 1), "penalty", "La penalización debe estar entre −20 y 0."),
        (actions.DiseaseSheet("Nueva", "common", -21), "penalty", "La penalización debe estar entre −20 y 0."),
        (actions.DiseaseSheet("", "common", -1), "name", "El nombre"),
        (actions.DiseaseSheet("Nueva", "mortal", -1), "category", "Elige común o grave."),
    ],
)
def test_a_bad_disease_is_refused_on_add_and_on_edit(world: World, sheet, field: str, message: str):
    error = refused(world, lambda: actions.add_disease(world.campaign_a, sheet, by=world.gm_a))
    assert error.field == field and message in error.message
    disease = own_disease(world)
    error = refused(world, lambda: actions.edit_disease(world.campaign_a, disease, sheet, by=world.gm_a))
    assert error.field == field and message in error.message


def test_only_the_campaigns_own_diseases_can_be_changed(world: World):
    foreign = Disease.objects.create(name="Ajena", category="common", penalty=-2, campaign=world.campaign_b)
    for disease in (plague(), foreign):
        for call in (
            lambda d=disease: actions.edit_disease(world.campaign_a, d, ALTITUDE, by=world.gm_a),
            lambda d=disease: actions.retire_disease(world.campaign_a, d, by=world.gm_a),
        ):
            error = refused(world, call)
            assert (error.field, error.message) == ("disease", "Esa enfermedad no es de esta campaña.")


def test_retiring_twice_or_restoring_an_active_one_is_refused(world: World):
    disease = own_disease(world)
    error = refused(world, lambda: actions.restore_disease(world.campaign_a, disease, by=world.gm_a))
    assert error.message == "«Mal de altura» ya se puede contraer."
    actions.retire_disease(world.campaign_a, disease, by=world.gm_a)
    error = refused(world, lambda: actions.retire_disease(world.campaign_a, disease, by=world.gm_a))
    assert error.message == "«Mal de altura» ya estaba retirada."


def test_an_illness_keeps_its_numbers_when_its_disease_is_edited(world: World):
    disease = own_disease(world)
    actions.expose(world.campaign_a, [world.npc_a], disease, dice_by_character={world.npc_a.pk: 1}, by=world.gm_a)
    harsher = actions.DiseaseSheet("Mal de altura", "common", -5)
    actions.edit_disease(world.campaign_a, disease, harsher, by=world.gm_a)
    illness = Illness.objects.get(character=world.npc_a)
    assert illness.penalty == -1
    assert log_mismatches(world.campaign_a) == []


# --- undo names its event --------------------------------------------------------------------------------------------


def test_undo_of_an_event_that_is_no_longer_the_latest_is_refused(world: World):
    first = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=3), by=world.gm_a).event
    second = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=4), by=world.gm_a).event
    for stale in (first, first.pk, 999_999):
        error = refused(world, lambda s=stale: actions.undo(world.campaign_a, by=world.gm_a, event=s))
        assert (error.field, error.message) == (
            "event",
            "Ese cambio ya se deshizo o ya no es el último: mira el registro.",
        )
    actions.undo(world.campaign_a, by=world.gm_a, event=second)
    error = refused(world, lambda: actions.undo(world.campaign_a, by=world.gm_a, event=second))  # a double submit
    assert error.field == "event"
    assert reload(world.char_a1).pg == 77


def test_an_undo_is_never_undone(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=3), by=world.gm_a)
    undo = undo_latest(world).event
    assert queries.latest_undoable(world.campaign_a) is None
    error = refused(world, lambda: actions.undo(world.campaign_a, by=world.gm_a, event=undo))
    assert error.message == "No hay nada que deshacer."
    assert entry(world, undo).title == "Deshecho: Daño: Ataque físico directo"
