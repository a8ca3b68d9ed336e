"""A wound row stands for a run of equal wounds (rules.mapping): a year of plague is one row that grows, not 52. The
stored rows and the log's states must still give back exactly the engine's wounds, whatever happens to a run."""

from dataclasses import replace

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from characters.models import Character
from rules import actions, engine, mapping
from rules.models import Disease, Illness, Wound
from tests.examples import examples
from tests.helpers import engine_health, log_mismatches, stored_health

WEEK = engine.WEEK

wound = st.builds(
    engine.Wound,
    kind=st.sampled_from(["attack", "illness"]),
    amount=st.integers(0, 3),
    treated=st.booleans(),
    inflicted_at=st.sampled_from([0, WEEK, 2 * WEEK, 3 * WEEK, 5 * WEEK]),
    illness_key=st.sampled_from([None, "disease:1"]),
)
# Runs are what matter: repeat a wound at a steady step, as a serious illness's weekly losses come.
run = st.tuples(wound, st.integers(1, 6), st.sampled_from([0, WEEK])).map(
    lambda r: [replace(r[0], inflicted_at=r[0].inflicted_at + n * r[2]) for n in range(r[1])]
)
wound_lists = st.lists(run, max_size=5).map(lambda runs: [w for r in runs for w in r])


def health_with(wounds: list[engine.Wound]) -> engine.Health:
    # CON 10: 100 PG, more than any list drawn here takes.
    return engine.Health(10, tuple(wounds), now=10 * WEEK)


@given(wound_lists)
def test_the_logs_form_of_a_state_gives_it_back_exactly(wounds):
    health = health_with(wounds)
    state = mapping.to_json(health)
    assert mapping.from_json(state) == health
    assert len(state["wounds"]) == len(mapping.runs(health.wounds, []))


def test_a_plain_state_is_logged_as_before():
    # Events written before runs existed, and states without any, read and write the same JSON as they always did.
    health = engine.Health(12, (engine.Wound("attack", 3, inflicted_at=5), engine.Wound("gas", 1)), now=9)
    assert mapping.to_json(health)["wounds"] == [
        {"kind": "attack", "amount": 3, "treated": False, "inflicted_at": 5, "illness_key": None},
        {"kind": "gas", "amount": 1, "treated": False, "inflicted_at": 0, "illness_key": None},
    ]


@pytest.mark.parametrize("times, every", [(0, 0), (2, -1), ("2", 0), (mapping.RUN_MAX + 1, WEEK)])
def test_a_run_from_elsewhere_must_be_sane(times, every):
    state = mapping.to_json(health_with([]))
    state["wounds"] = [{"kind": "illness", "amount": 1, "inflicted_at": 0, "times": times, "every": every}]
    with pytest.raises(ValueError):
        mapping.from_json(state)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    first=wound_lists,
    changes=st.lists(st.tuples(st.integers(0, 30), st.integers(0, 3), st.booleans())),
    keep=st.integers(0, 40),
    more=wound_lists,
)
def test_rows_say_exactly_what_the_engine_says_after_any_change(world, first, changes, keep, more):
    """Store a state, then a later one — wounds healed or treated anywhere in a run, the list cut short (undo) or
    grown — and read both back from the rows: exactly the engine's wounds, each within its first amount."""
    with transaction.atomic():
        Character.objects.filter(pk=world.char_a1.pk).update(constitution=10, pg=100)
        character = Character.objects.get(pk=world.char_a1.pk)
        Wound.objects.filter(character=character).delete()
        Illness.objects.filter(character=character).delete()
        stored = mapping.Changes()
        stored.record(character, [], [], health_with(first))
        stored.save()
        rows = list(Wound.objects.filter(character=character))
        assert mapping.health_of(character, rows, [], 10 * WEEK).wounds == tuple(first)

        later = list(first)
        for index, amount, treated in changes:
            if index < len(later):
                # An undo writes what remains of a wound, never more than its first amount.
                later[index] = replace(later[index], amount=min(amount, later[index].amount), treated=treated)
        # The engine only appends; an undo cuts the list short. Each in turn, as actions and undos come.
        for state in (later[:keep], later[:keep] + more):
            again = mapping.Changes()
            again.record(character, rows, [], health_with(state))
            again.save()
            rows = list(Wound.objects.filter(character=character))
            assert mapping.health_of(character, rows, [], 10 * WEEK).wounds == tuple(state)
            assert all(row.remaining <= row.amount for row in rows)
        transaction.set_rollback(True)


def test_a_year_of_plague_is_one_row_that_grows_heals_and_undoes_exactly(world):
    campaign, gm, healer = world.campaign_a, world.gm_a, world.npc_a
    patient = world.char_a1
    Character.objects.filter(pk=healer.pk).update(heal_wounds=1)
    plague = Disease.objects.get(name="Peste", builtin=True)
    actions.expose(campaign, [patient], plague, dice_by_character={patient.pk: 1}, by=gm)
    actions.advance_clock(campaign, 26 * WEEK, by=gm)
    actions.advance_clock(campaign, 26 * WEEK, by=gm)
    [illness_row] = Wound.objects.filter(character=patient, kind="illness")
    assert (illness_row.times, illness_row.every, illness_row.remaining) == (52, WEEK, 1)

    # Cured, the weekly wounds heal one after another: the run splits into healed, healing and still to heal.
    [episode] = Illness.objects.filter(character=patient)
    actions.treat_illness(campaign, patient, episode, healer, by=gm)
    actions.medicate(campaign, patient, episode, by=gm)
    actions.advance_clock(campaign, 10 * engine.DAY + 3600, by=gm)
    healing = engine_health(patient)
    assert [w.amount for w in healing.wounds if w.kind == "illness"] == [0] * 10 + [1] * 42
    actions.treat_wounds(campaign, patient, healer, by=gm)
    treated = engine_health(patient)
    assert [w.treated for w in treated.wounds if w.kind == "illness"] == [False] * 10 + [True] * 42
    assert Wound.objects.filter(character=patient, kind="illness").count() == 2

    # Undo gives back exactly the state before, rows and all; undoing everything leaves no wound of the plague.
    actions.undo(campaign, by=gm)
    assert replace(stored_health(patient), now=0) == replace(healing, now=0)
    assert log_mismatches(campaign) == []
    for _action in range(6):  # the advance, the medicine, the treatment, two half years and the exposure
        actions.undo(campaign, by=gm)
        assert log_mismatches(campaign) == []
    assert not Wound.objects.filter(character=patient, kind="illness").exists()
    assert not Illness.objects.filter(character=patient).exists()
