"""Random sequences of GM actions on real PostgreSQL: the stored PG always equals what the engine computes from the
stored rows, and undo always restores exactly the state before the last action."""

from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from characters.models import Character
from rules import actions
from rules.damage import Attack, Fall, Gas
from rules.models import Disease, Illness
from tests.helpers import World, engine_health, engine_pg, snapshot

die12 = st.integers(1, 12)
step = st.one_of(
    st.tuples(st.just("attack"), st.integers(0, 60)),
    st.tuples(st.just("gas"), st.integers(0, 8)),
    st.tuples(st.just("fall"), st.integers(0, 20), st.integers(1, 20)),
    st.tuples(st.just("advance"), st.integers(1, 10 * 86400), st.booleans()),
    st.tuples(st.just("expose"), st.sampled_from(["Gripe", "Peste", "Tuberculosis"]), die12),
    st.tuples(st.just("treat_wounds")),
    st.tuples(st.just("cure")),
    st.tuples(st.just("exertion"), die12),
)


def perform(world: World, action: tuple) -> None:
    name, *args = action
    a, gm, patient, healer = world.campaign_a, world.gm_a, world.char_a1, world.npc_a
    if name in ("attack", "gas"):
        damage = Attack(amount=args[0]) if name == "attack" else Gas(turns=args[0])
        actions.apply_damage(a, [patient, world.char_a2], damage, by=gm)
    elif name == "fall":
        actions.apply_damage(a, [patient], Fall(height_m=args[0], dice={patient.pk: args[1]}), by=gm)
    elif name == "advance":
        actions.advance_clock(a, args[0], resting=None if args[1] else [], by=gm)
    elif name == "expose":
        disease = Disease.objects.get(name=args[0], builtin=True)
        actions.expose(a, [patient], disease, dice_by_character={patient.pk: args[1]}, by=gm)
    elif name == "treat_wounds":
        actions.treat_wounds(a, patient, healer, by=gm)
    elif name == "cure":
        for illness in Illness.objects.filter(character=patient, cured_at=None):
            actions.treat_illness(a, patient, illness, healer, by=gm)
            actions.medicate(a, patient, illness, by=gm)
    elif name == "exertion":
        actions.exertion(a, patient, die=args[0], by=gm)


def refusal_expected(world: World, action: tuple) -> bool:
    """Whether the rules must refuse this step now: care or a check for a dead patient, or no wound left to treat."""
    health = engine_health(world.char_a1)
    name = action[0]
    if name == "treat_wounds":
        return health.dead or not any(w.amount > 0 and not w.treated for w in health.wounds)
    if name == "cure":
        return health.dead and any(not illness.cured for illness in health.illnesses)
    return health.dead and name in ("expose", "exertion")


def game_state(world: World):
    """The characters and their rows, without row ids (a redone action makes new rows)."""
    characters, wounds, illnesses, *_ = snapshot()
    strip = [[{k: v for k, v in row.items() if k != "id"} for row in rows] for rows in (wounds, illnesses)]
    return characters, *strip


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, min_size=1, max_size=10))
def test_stored_state_follows_the_engine_and_undo_restores_it(world: World, steps):
    Character.objects.filter(pk=world.npc_a.pk).update(heal_wounds=6)
    savepoint = transaction.savepoint_create()
    try:
        for action in steps:
            before = snapshot()
            expected = refusal_expected(world, action)
            try:
                perform(world, action)
            except actions.ActionError as error:
                assert expected, (action, error.message)  # only what the rules forbid is refused
                assert snapshot() == before  # a refusal writes nothing
                continue
            assert not expected, action  # and what they forbid is refused
            for character in Character.objects.filter(campaign=world.campaign_a):
                assert character.pg == engine_pg(character), (action, character.name)
            if action[0] != "cure":  # "cure" is two actions
                after = game_state(world)
                actions.undo(world.campaign_a, by=world.gm_a)
                assert snapshot()[:3] == before[:3]
                world.campaign_a.refresh_from_db()
                assert world.campaign_a.clock == before[4][0][0]
                perform(world, action)  # redo it, to go on from there
                assert game_state(world) == after
    finally:
        transaction.savepoint_rollback(savepoint)
