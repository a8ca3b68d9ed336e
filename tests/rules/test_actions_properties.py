"""Random sequences of GM actions on real PostgreSQL: the stored PG always equals what the engine computes from the
stored rows, and undo always restores exactly the state before the last action. With sheet edits, removals,
invitations and diseases in the mix, the stored state replays the log, no one is alive at 0 PG, and undoing
everything brings back the first state."""

from dataclasses import replace

from django.db import transaction
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from campaigns.models import Campaign, Event, Invitation
from characters.models import Character
from rules import actions, queries
from rules.damage import Attack, Fall, Gas
from rules.models import Disease, Illness
from tests.examples import examples
from tests.helpers import (
    World,
    death_invariant_violations,
    engine_health,
    engine_pg,
    full_snapshot,
    log_mismatches,
    snapshot,
    stored_healths,
)
from tests.played import HEALTH, nth, play_health

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
            illness.refresh_from_db()
            if illness.cured_at is None:  # a common illness is cured by the treatment alone (docs/rules.md §5)
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
    if name == "exertion":
        return not 1 <= health.pg <= 4  # docs/rules.md §4: only while 1 ≤ PG ≤ 4, never for the dead
    return health.dead and name in ("expose", "fall")  # the dead make no check (docs/rules.md §7.8)


def game_state(world: World):
    """The characters and their rows, without row ids (a redone action makes new rows): each character's rows in
    their order, which is the engine's (an undone run's second half is a row written anew, after others' rows)."""
    characters, wounds, illnesses, *_ = snapshot()
    strip = [
        [{k: v for k, v in row.items() if k != "id"} for row in sorted(rows, key=lambda row: row["character_id"])]
        for rows in (wounds, illnesses)
    ]
    return characters, *strip


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, min_size=1, max_size=10))
# Aldara's two attacks of 5 become one run when treated; undone, the second is a row again, written after Borin's.
@example(
    steps=[("attack", 5), ("treat_wounds",), ("advance", 60, False), ("attack", 5), ("attack", 7), ("treat_wounds",)]
)
# A common illness is cured by its treatment alone: "cure" gives it no medicine.
@example(steps=[("expose", "Gripe", 1), ("cure",)])
def test_stored_state_follows_the_engine_and_undo_restores_it(world: World, steps):
    Character.objects.filter(pk=world.npc_a.pk).update(heal_wounds=6)
    savepoint = transaction.savepoint_create()
    try:
        for action in steps:
            before, before_state = snapshot(), game_state(world)
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
                # Exactly the rows before, but for their ids: equal wounds that an action wrote as one run are two
                # rows again (rules.mapping), the second written anew.
                assert game_state(world) == before_state
                world.campaign_a.refresh_from_db()
                assert world.campaign_a.clock == before[4][0][0]
                perform(world, action)  # redo it, to go on from there
                assert game_state(world) == after
    finally:
        transaction.savepoint_rollback(savepoint)


# --- sequences that also edit sheets, remove characters, hand them over and change diseases ---------------------------

who = st.integers(0, 4)  # a character of the campaign by position (removed ones too; past the end: the last one)
sheet_edit = st.one_of(
    st.tuples(st.just("name"), st.sampled_from(["Aldara la Roja", "Borin", "  Sibila  ", ""])),
    st.tuples(st.just("constitution"), st.integers(1, 14)),
    st.tuples(st.just("jump"), st.integers(0, 6)),
    st.tuples(st.just("heal_wounds"), st.integers(0, 6)),
    st.tuples(st.just("weight_kg"), st.sampled_from([40, 70, 130])),
    st.tuples(st.just("player"), st.sampled_from([None, "player_a", "player_a2", "outsider"])),
)
disease_sheet = st.sampled_from(
    [
        ("Mal de altura", "common", -1, None),
        ("Fiebre del pantano", "serious", -3, 2),
        ("gripe", "common", -2, None),  # a built-in's name: refused while it is active
        ("Sin pérdida", "serious", -2, None),  # a serious disease needs its weekly loss: refused
    ]
)
any_step = st.one_of(
    st.tuples(st.just("attack"), st.integers(0, 60), st.sets(who, min_size=1, max_size=3)),
    st.tuples(st.just("gas"), st.integers(0, 8), st.sets(who, min_size=1, max_size=3)),
    st.tuples(st.just("fall"), st.integers(0, 20), st.integers(1, 20), who),
    st.tuples(st.just("advance"), st.integers(1, 10 * 86400), st.booleans()),
    st.tuples(st.just("expose"), st.integers(0, 7), die12, who),
    st.tuples(st.just("treat_wounds"), who),
    st.tuples(st.just("treat_illness"), who),
    st.tuples(st.just("medicate"), who),
    st.tuples(st.just("exertion"), die12, who),
    st.tuples(st.just("edit"), who, sheet_edit),
    st.tuples(st.just("add_character"), st.integers(1, 12)),
    st.tuples(st.just("remove"), who),
    st.tuples(st.just("invite"), who),
    st.tuples(st.just("revoke"), st.integers(0, 2)),
    st.tuples(st.just("claim"), st.integers(0, 2), st.sampled_from(["outsider", "outsider", "player_a", "gm_a"])),
    st.tuples(st.just("add_disease"), disease_sheet),
    st.tuples(st.just("edit_disease"), st.integers(0, 3), disease_sheet),
    st.tuples(st.just("retire_disease"), st.integers(0, 3)),
    st.tuples(st.just("restore_disease"), st.integers(0, 3)),
    st.tuples(st.just("campaign"), st.sampled_from(["A", "La Cripta"]), st.sampled_from(["gm_a", "gm_b"])),
    st.tuples(
        st.just("undo"),
    ),
)


def perform_any(world: World, step: tuple) -> None:
    """One action of any kind on campaign A, as the GM (or a player, for a claim) would."""
    name, *args = step
    a, gm = world.campaign_a, world.gm_a
    characters = list(Character.everyone.filter(campaign=a).order_by("id"))
    diseases = list(Disease.objects.filter(campaign=a).order_by("id"))
    if name in HEALTH:
        play_health(world, name, args)
    elif name == "edit":
        character = nth(characters, args[0])
        field, value = args[1]
        if field == "player":
            field, value = "player_id", None if value is None else getattr(world, value).pk
        actions.edit_character(a, character, replace(actions.Sheet.of(character), **{field: value}), by=gm)
    elif name == "add_character":
        actions.add_character(a, actions.Sheet("Eira", args[0]), by=gm)
    elif name == "remove":
        actions.remove_character(a, nth(characters, args[0]), by=gm)
    elif name == "invite":
        actions.create_invitation(a, nth(characters, args[0]), by=gm)
    elif name == "revoke":  # a pending link if there is one, else the latest (refused: no longer pending)
        links = list(Invitation.objects.filter(campaign=a).order_by("revoked_at", "claimed_by", "id"))
        actions.revoke_invitation(a, nth(links, args[0]).pk, by=gm)
    elif name == "claim":
        links = list(Invitation.objects.filter(campaign=a).order_by("revoked_at", "claimed_by", "id"))
        actions.claim_invitation(nth(links, args[0]).token, getattr(world, args[1]))
    elif name in ("add_disease", "edit_disease"):
        sheet = actions.DiseaseSheet(*args[-1])
        if name == "add_disease":
            actions.add_disease(a, sheet, by=gm)
        else:
            actions.edit_disease(a, nth(diseases, args[0]) or 0, sheet, by=gm)
    elif name in ("retire_disease", "restore_disease"):
        action = actions.retire_disease if name == "retire_disease" else actions.restore_disease
        action(a, nth(diseases, args[0]) or 0, by=gm)
    elif name == "campaign":
        actions.edit_campaign(a, name=args[0], gm=getattr(world, args[1]), by=gm)
    elif name == "undo":
        actions.undo(a, by=gm, event=queries.latest_undoable(a))


def everything(world: World):
    return full_snapshot(world.campaign_a), Event.objects.filter(campaign=world.campaign_a).count()


def assert_consistent(world: World, step: tuple) -> None:
    """The stored state is the engine's and the log's, and dead means PG 0."""
    assert log_mismatches(world.campaign_a) == [], step
    assert death_invariant_violations() == [], step
    characters = Character.everyone.filter(campaign=world.campaign_a)
    healths = stored_healths(characters)
    for character in characters:
        assert character.pg == healths[character.pk].pg, (step, character.name)


def undo_everything(world: World) -> None:
    """Undo every change, each by the campaign's owner at that moment (a hand-over to gm_b leaves gm_a no right)."""
    while (latest := queries.latest_undoable(world.campaign_a)) is not None:
        owner = Campaign.objects.get(pk=world.campaign_a.pk).gm
        actions.undo(world.campaign_a, by=owner, event=latest)
        assert_consistent(world, ("undo", latest.action))


def assert_back_at_the_start(world: World, start: dict) -> None:
    """Undoing everything restores the first state exactly. A character added and then undone stays in the database
    as removed (undo never deletes a character): it is the one difference allowed."""
    now = full_snapshot(world.campaign_a)
    first_ids = {row["id"] for row in start["characters"]}
    added = [row for row in now["characters"] if row["id"] not in first_ids]
    assert all(row["removed"] for row in added), added
    now["characters"] = [row for row in now["characters"] if row["id"] in first_ids]
    for part in start:
        assert now[part] == start[part], part


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(any_step, min_size=1, max_size=16))
def test_sheet_edits_removals_invitations_and_diseases_keep_the_state_and_undo_to_the_start(world: World, steps):
    Character.objects.filter(pk=world.npc_a.pk).update(heal_wounds=6)
    savepoint = transaction.savepoint_create()
    try:
        # The campaign's own disease, there before the story starts (so edits, retiring and restoring have one).
        Disease.objects.create(
            name="Fiebre del hielo", category="serious", penalty=-1, pg_per_week=1, campaign=world.campaign_a
        )
        start = full_snapshot(world.campaign_a)
        for step in steps:
            before = everything(world)
            try:
                perform_any(world, step)
            except actions.ActionError:
                assert everything(world) == before, step  # a refusal writes nothing
                event(f"{step[0]}: refused")
                continue
            event(f"{step[0]}: done")
            assert_consistent(world, step)
        undo_everything(world)
        assert_back_at_the_start(world, start)
    finally:
        transaction.savepoint_rollback(savepoint)
