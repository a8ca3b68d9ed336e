"""Checks called by the GM and answered by the players (rules.actions.checks), through real PostgreSQL."""

import json

import pytest

from campaigns.models import Campaign, Event
from characters.models import Character
from rules import actions, backup, engine, queries
from rules.actions import ActionError, Call
from rules.damage import Attack, Fall
from rules.models import CalledCheck, CheckKind, Disease
from tests.helpers import World, log_mismatches, make_user, plague, reload, run_at_once, snapshot, stored_health

FALL = Call(CheckKind.FALL, height_m=10, difficulty=15)


def called(world: World, call: Call = FALL, *characters: Character) -> list[CalledCheck]:
    chosen = characters or (world.char_a1, world.char_a2)
    outcome = actions.call_check(world.campaign_a, chosen, call, by=world.gm_a)
    return list(CalledCheck.objects.filter(called=outcome.event).order_by("character__name"))


def test_calling_a_check_logs_it_and_waits_for_each_character(world: World):
    aldara, borin = called(world)
    event = Event.objects.get(action="check_called")
    assert event.characters == sorted([world.char_a1.pk, world.char_a2.pk])
    assert event.details == {"check": "fall", "height_m": 10, "difficulty": 15, "skipped": [], "protected": []}
    assert (aldara.character, aldara.status, aldara.height_m, aldara.weight_kg) == (world.char_a1, "pending", 10, None)
    assert [c.pk for c in queries.pending_checks(world.campaign_a, [world.char_a2.pk])] == [borin.pk]
    world.campaign_a.refresh_from_db()
    assert world.campaign_a.version == 1
    assert reload(world.char_a1).pg == 80  # nothing happens until the die is rolled


def test_a_players_die_runs_the_action_exactly_as_if_the_gm_had_typed_it(world: World):
    aldara, _borin = called(world)
    outcome = actions.answer_check(world.campaign_a, aldara, by=world.player_a, die=3)
    answered_state = stored_health(world.char_a1)
    event = outcome.event
    assert (event.action, event.actor, event.characters) == ("damage", world.player_a, [world.char_a1.pk])
    [roll] = event.details["rolls"]
    assert (roll["die"], roll["sides"], roll["difficulty"], roll["success"]) == (3, 20, 15, False)
    assert event.details["call"] == {
        "check": aldara.pk,
        "called": aldara.called_id,
        "by": "player_a",
        "gm": False,
        "typed": True,
    }
    aldara.refresh_from_db()
    assert (aldara.status, aldara.closed_id) == ("answered", event.pk)
    # The same fall typed by the GM gives the very same state.
    actions.undo(world.campaign_a, by=world.gm_a)
    typed = actions.apply_damage(
        world.campaign_a, [world.char_a1], Fall(10, None, 15, {world.char_a1.pk: 3}), by=world.gm_a
    )
    assert stored_health(world.char_a1) == answered_state
    assert typed.event.details["rolls"] == event.details["rolls"]
    assert log_mismatches(world.campaign_a) == []


def test_a_check_is_answered_once(world: World):
    aldara, _borin = called(world)
    actions.answer_check(world.campaign_a, aldara, by=world.player_a, die=20)
    before = snapshot()
    with pytest.raises(ActionError, match="ya no está pendiente"):
        actions.answer_check(world.campaign_a, aldara, by=world.player_a, die=1)
    with pytest.raises(ActionError, match="ya no está pendiente"):
        actions.answer_check(world.campaign_a, aldara, by=world.gm_a)
    assert snapshot() == before


def test_a_player_answers_only_their_own_characters_checks(world: World):
    _aldara, borin = called(world)
    before = snapshot()
    for someone in (world.player_a, world.gm_b, world.outsider, None):
        with pytest.raises(ActionError, match="Solo su jugador o el narrador"):
            actions.answer_check(world.campaign_a, borin, by=someone, die=5)
    with pytest.raises(ActionError, match="no existe"):
        actions.answer_check(world.campaign_b, borin, by=world.gm_b, die=5)  # another campaign's check
    assert snapshot() == before
    borin.refresh_from_db()
    assert borin.status == "pending"


def test_the_gm_answers_for_an_npc_and_the_server_rolls(world: World):
    [npc] = called(world, FALL, world.npc_a)
    outcome = actions.answer_check(world.campaign_a, npc, by=world.gm_a)
    [roll] = outcome.event.details["rolls"]
    # The server's die, whatever it was, is the one the fall was worked out with: failed, Tomás lost the fall's PG.
    lost = 0 if roll["success"] else engine.fall_damage(10, world.npc_a.weight_kg)
    assert (roll["sides"], roll["difficulty"], reload(world.npc_a).pg) == (20, 15, world.npc_a.pg - lost)
    assert outcome.event.details["call"]["gm"] is True and outcome.event.details["call"]["typed"] is False


def test_a_die_out_of_range_changes_nothing(world: World):
    aldara, _borin = called(world)
    before = snapshot()
    for die in (0, 21, -3, 10**12):
        with pytest.raises(ActionError):
            actions.answer_check(world.campaign_a, aldara, by=world.player_a, die=die)
    assert snapshot() == before


def test_undo_of_an_answer_calls_the_check_again_and_undo_of_the_call_removes_it(world: World):
    aldara, borin = called(world)
    actions.answer_check(world.campaign_a, aldara, by=world.player_a, die=1)
    actions.undo(world.campaign_a, by=world.gm_a)
    aldara.refresh_from_db()
    assert (aldara.status, aldara.closed_id, reload(world.char_a1).pg) == ("pending", None, 80)
    actions.undo(world.campaign_a, by=world.gm_a)
    assert not CalledCheck.objects.filter(pk__in=[aldara.pk, borin.pk]).exists()


def test_the_gm_cancels_pending_checks_and_undo_calls_them_again(world: World):
    aldara, borin = called(world)
    actions.answer_check(world.campaign_a, aldara, by=world.player_a, die=20)
    outcome = actions.cancel_check(world.campaign_a, [aldara, borin], by=world.gm_a)
    assert (outcome.event.action, outcome.event.characters) == ("check_cancelled", [world.char_a2.pk])
    borin.refresh_from_db()
    assert borin.status == "cancelled"
    with pytest.raises(ActionError, match="ya no está pendiente"):
        actions.answer_check(world.campaign_a, borin, by=world.player_a2, die=5)
    with pytest.raises(ActionError, match="ya no está pendiente"):
        actions.cancel_check(world.campaign_a, [borin], by=world.gm_a)
    actions.undo(world.campaign_a, by=world.gm_a)
    borin.refresh_from_db()
    assert (borin.status, borin.closed_id) == ("pending", None)
    aldara.refresh_from_db()
    assert aldara.status == "answered"


def test_a_resistance_check_skips_the_dead_and_the_protected(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=50), by=world.gm_a)  # Tomás dies
    actions.expose(world.campaign_a, [world.char_a2], plague(), by=world.gm_a, dice_by_character={world.char_a2.pk: 12})
    call = Call(CheckKind.RESISTANCE, disease=plague())
    outcome = actions.call_check(world.campaign_a, [world.char_a1, world.char_a2, world.npc_a], call, by=world.gm_a)
    assert outcome.event.details["skipped"] == [world.npc_a.pk]
    assert outcome.event.details["protected"] == [world.char_a2.pk]
    [aldara] = CalledCheck.objects.filter(called=outcome.event)
    assert (aldara.character, aldara.disease) == (world.char_a1, plague())
    answer = actions.answer_check(world.campaign_a, aldara, by=world.player_a, die=1)
    assert (answer.event.action, answer.event.details["fell_ill"]) == ("expose", [world.char_a1.pk])
    with pytest.raises(ActionError, match="protegidos"):
        actions.call_check(world.campaign_a, [world.char_a2], call, by=world.gm_a)


def test_calls_for_the_dead_unknown_diseases_and_bad_heights_are_refused(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=50), by=world.gm_a)
    before = snapshot()
    with pytest.raises(ActionError, match="ha muerto"):
        actions.call_check(world.campaign_a, [world.npc_a], FALL, by=world.gm_a)
    with pytest.raises(ActionError, match="no está disponible"):
        actions.call_check(world.campaign_a, [world.char_a1], Call(CheckKind.RESISTANCE, disease=0), by=world.gm_a)
    with pytest.raises(ActionError, match="altura"):
        actions.call_check(world.campaign_a, [world.char_a1], Call(CheckKind.FALL, height_m=10**9), by=world.gm_a)
    with pytest.raises(ActionError, match="no pertenece"):
        actions.call_check(world.campaign_a, [world.char_b], FALL, by=world.gm_a)
    with pytest.raises(ActionError, match="Elige"):
        actions.call_check(world.campaign_a, [], FALL, by=world.gm_a)
    assert snapshot() == before


def test_exertion_is_called_only_at_four_pg_or_less(world: World):
    with pytest.raises(ActionError, match="no necesita tirada de esfuerzo"):
        called(world, Call(CheckKind.EXERTION), world.char_a1)
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=77), by=world.gm_a)  # 3 PG
    [aldara] = called(world, Call(CheckKind.EXERTION), world.char_a1)
    outcome = actions.answer_check(world.campaign_a, aldara, by=world.player_a, die=1)
    assert outcome.event.action == "exertion" and reload(world.char_a1).pg == 2


def test_a_check_whose_character_died_since_says_so_and_stays_pending(world: World):
    aldara, _borin = called(world)
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=80), by=world.gm_a)
    with pytest.raises(ActionError, match="ha muerto"):
        actions.answer_check(world.campaign_a, aldara, by=world.player_a, die=5)
    aldara.refresh_from_db()
    assert aldara.status == "pending"
    actions.cancel_check(world.campaign_a, [aldara], by=world.gm_a)


@pytest.mark.django_db(transaction=True)
def test_two_answers_at_once_roll_once():
    gm, ana = make_user("gm"), make_user("ana")
    campaign = Campaign.objects.create(name="Carrera", gm=gm)
    aldara = Character.objects.create(campaign=campaign, name="Aldara", constitution=8, player=ana)
    outcome = actions.call_check(campaign, [aldara], FALL, by=gm)
    [check] = CalledCheck.objects.filter(called=outcome.event)
    errors = run_at_once(
        [
            lambda: actions.answer_check(campaign.pk, check.pk, by=ana, die=1),
            lambda: actions.answer_check(campaign.pk, check.pk, by=gm, die=1),
            lambda: actions.answer_check(campaign.pk, check.pk, by=ana, die=2),
        ]
    )
    assert len(errors) == 2 and all(isinstance(error, ActionError) for error in errors)
    assert Event.objects.filter(campaign=campaign, action="damage").count() == 1
    assert reload(aldara).pg == engine.max_pg(8) - engine.fall_damage(10, 70)


def test_a_campaign_with_calls_exports_imports_and_undoes(world: World):
    """The calls themselves stay on this site (like invitation links); their log entries travel and undo cleanly."""
    aldara, borin = called(world)
    actions.answer_check(world.campaign_a, aldara, by=world.player_a, die=2)
    actions.cancel_check(world.campaign_a, [borin], by=world.gm_a)
    copy = backup.import_campaign(json.loads(json.dumps(backup.export_campaign(world.campaign_a))), world.gm_b)
    assert not CalledCheck.objects.filter(campaign=copy).exists()
    for _undone in range(3):  # the cancellation, the answer, the call
        actions.undo(copy, by=world.gm_b)
    assert log_mismatches(copy) == []


def test_a_campaign_with_a_check_called_against_its_own_disease_can_be_deleted(world: World):
    swamp = actions.add_disease(
        world.campaign_a, actions.DiseaseSheet("Fiebre del pantano", "serious", -2, 1), by=world.gm_a
    )
    disease = Disease.objects.get(campaign=world.campaign_a)
    called(world, Call(CheckKind.RESISTANCE, disease=disease))
    actions.delete_campaign(world.campaign_a, by=world.gm_a, typed_name="A")
    assert not CalledCheck.objects.exists() and swamp.event is not None
