"""Issue 21: the backup as properties, on real PostgreSQL. Whatever the app writes, its export imports and exports
again byte for byte (whoever imports it); and a document changed at any one place is either refused with a message
(ActionError) or imports to a state the app could reach — its PG the engine's, its log replaying to its rows, its
whole history undoable — never anything else."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns.models import Campaign, Invitation, Role
from characters.models import Character
from rules import actions, backup, dice, queries
from rules.actions.diseases import NAME_LENGTH as DISEASE_NAME_LENGTH
from rules.actions.sheet import NAME_LENGTH, NOTES_LENGTH
from rules.backup.read import as_document
from rules.backup.schema import USERNAME_LENGTH
from rules.backup.validate import validate
from rules.models import CheckKind, Disease
from tests.campaigns.documents import assert_within_limits, story
from tests.examples import examples
from tests.helpers import World, death_invariant_violations, log_mismatches, stored_health
from tests.played import HEALTH, nth, play_health

die12 = st.integers(1, 12)
who = st.integers(0, 5)  # a character by position, removed ones too (past the end: the last one)
step = st.one_of(
    st.tuples(st.just("attack"), st.integers(0, 60), st.sets(who, min_size=1, max_size=3)),
    st.tuples(st.just("gas"), st.integers(0, 8), st.sets(who, min_size=1, max_size=3)),
    st.tuples(st.just("fall"), st.integers(0, 20), st.integers(1, 20), who),
    st.tuples(st.just("advance"), st.sampled_from([1, 3600, 86400 - 1, 86400, 3 * 86400, 8 * 86400]), st.booleans()),
    st.tuples(st.just("expose"), st.integers(0, 7), die12, who),
    st.tuples(st.just("treat_wounds"), who),
    st.tuples(st.just("treat_illness"), who),
    st.tuples(st.just("medicate"), who),
    st.tuples(st.just("exertion"), die12, who),
    st.tuples(st.just("constitution"), who, st.integers(1, 14)),
    st.tuples(st.just("party_view"), who, st.sampled_from(["", "hidden", "exact"])),
    st.tuples(st.just("add_character"), st.integers(1, 12)),
    st.tuples(st.just("remove"), who),
    st.tuples(st.just("invite"), who),
    st.tuples(st.just("claim"), st.sampled_from(["outsider", "player_a"])),
    st.tuples(
        st.just("add_disease"), st.sampled_from([("Mal de altura", "common", -1, None), ("Fiebre", "serious", -2, 1)])
    ),
    st.tuples(st.just("edit_disease"), st.integers(-3, 0)),
    st.tuples(st.just("retire_disease")),
    st.tuples(st.just("restore_disease")),
    st.tuples(st.just("campaign"), st.sampled_from(["A", "La Cripta"]), st.sampled_from(["band", "exact"])),
    st.tuples(st.just("call"), who, st.sampled_from(["fall", "resistance", "exertion"])),
    st.tuples(st.just("answer"), die12),
    st.tuples(st.just("cancel")),
    st.tuples(st.just("gm"), st.sampled_from(["gm_a", "gm_b"])),
    st.tuples(st.just("undo")),
    # co-GMs (issue 25): the owner's link, made or revoked, claimed by a stranger or a player; a co-GM removed
    st.tuples(st.just("co_gm_link"), st.booleans()),
    st.tuples(st.just("co_gm_claim"), st.sampled_from(["outsider", "player_a"])),
    st.tuples(st.just("co_gm_remove"), st.sampled_from(["outsider", "player_a"])),
)


def perform(world: World, action: tuple) -> None:
    """One action on campaign A, as the GM (or a player, for a claim) would; refusals are the rules'."""
    name, *args = action
    a, gm = world.campaign_a, world.gm_a
    characters = list(Character.everyone.filter(campaign=a).order_by("id"))
    own = Disease.objects.filter(campaign=a).order_by("id").first()
    if name in HEALTH:
        play_health(world, name, args)
    elif name in ("constitution", "party_view"):
        character = nth(characters, args[0])
        sheet = replace(actions.Sheet.of(character), **{name: args[1]})
        actions.edit_character(a, character, sheet, by=gm)
    elif name == "add_character":
        actions.add_character(a, actions.Sheet("Eira", args[0]), by=gm)
    elif name == "remove":
        actions.remove_character(a, nth(characters, args[0]), by=gm)
    elif name == "invite":
        actions.create_invitation(a, nth(characters, args[0]), by=gm)
    elif name == "claim":
        link = Invitation.objects.filter(campaign=a, role=Role.PLAYER).pending().order_by("id").first()
        if link is None:
            raise actions.ActionError("no pending link")
        actions.claim_invitation(link.token, getattr(world, args[0]))
    elif name == "add_disease":
        actions.add_disease(a, actions.DiseaseSheet(*args[0]), by=gm)
    elif name == "edit_disease":
        if own is None:
            raise actions.ActionError("no disease of its own")
        sheet = actions.DiseaseSheet.of(own)
        actions.edit_disease(a, own, replace(sheet, penalty=args[0]), by=gm)
    elif name in ("retire_disease", "restore_disease"):
        if own is None:
            raise actions.ActionError("no disease of its own")
        (actions.retire_disease if name == "retire_disease" else actions.restore_disease)(a, own, by=gm)
    elif name == "campaign":
        actions.edit_campaign(a, name=args[0], party_view=args[1], by=gm)
    elif name == "call":
        kind = CheckKind(args[1])
        disease = Disease.objects.get(name="Peste", builtin=True) if kind == CheckKind.RESISTANCE else None
        call = actions.Call(kind, height_m=5 if kind == CheckKind.FALL else None, disease=disease)
        actions.call_check(a, [nth(characters, args[0])], call, by=gm)
    elif name in ("answer", "cancel"):
        pending = queries.pending_checks(a)
        if not pending:
            raise actions.ActionError("no check pending")
        if name == "answer":
            actions.answer_check(a, pending[0], by=gm, die=args[0])
        else:
            actions.cancel_check(a, pending, by=gm)
    elif name == "gm":
        actions.edit_campaign(a, gm=getattr(world, args[0]), by=gm)
    elif name == "undo":
        actions.undo(a, by=gm, event=queries.latest_undoable(a))
    else:
        play_co_gms(world, name, args)


def play_co_gms(world: World, name: str, args: list[Any]) -> None:
    a, gm = world.campaign_a, world.gm_a
    link = Invitation.objects.filter(campaign=a, role=Role.GM).pending().first()
    if name == "co_gm_link" and args[0] and link is not None:
        actions.revoke_co_gm_invitation(a, link, by=gm)
    elif name == "co_gm_link":
        actions.create_co_gm_invitation(a, by=gm)
    elif name == "co_gm_claim":
        if link is None:
            raise actions.ActionError("no pending co-GM link")
        actions.claim_invitation(link.token, getattr(world, args[0]))
    elif name == "co_gm_remove":
        actions.remove_co_gm(a, getattr(world, args[0]).pk, by=gm)


def play(world: World, steps: list[tuple]) -> None:
    Character.objects.filter(pk=world.npc_a.pk).update(heal_wounds=6)
    for action in steps:
        try:
            with transaction.atomic():
                perform(world, action)
        except actions.ActionError:
            continue


def text(document: dict[str, Any]) -> str:
    return json.dumps(document, ensure_ascii=False, indent=1)


def exported(campaign: Campaign) -> dict[str, Any]:
    return json.loads(json.dumps(backup.export_campaign(campaign)))


def assert_reachable(campaign: Campaign, exportable: bool = False) -> None:
    """A state the app could reach: each character's PG and death the engine's from its rows, its rows the log's,
    and its whole history undoable, to the first entry — and, `exportable`, at each step a campaign whose export
    an import takes (what the app makes, it imports)."""
    for character in Character.everyone.filter(campaign=campaign):
        health = stored_health(character)
        assert (character.pg, character.died_at) == (health.pg, health.died_at), character.name
    assert log_mismatches(campaign) == []
    while (latest := queries.latest_undoable(campaign)) is not None:
        actions.undo(campaign, by=campaign.gm, event=latest)  # an ActionError here is a campaign stuck: a failure
        assert log_mismatches(campaign) == [], latest.action
        assert death_invariant_violations() == []
        if exportable:
            validate(as_document(backup.export_campaign(campaign)))  # an ActionError here: the app made a refusal


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, min_size=3, max_size=24))
def test_whatever_the_app_writes_imports_and_exports_again_byte_for_byte(world: World, steps: list[tuple]):
    savepoint = transaction.savepoint_create()
    try:
        Disease.objects.create(
            name="Fiebre del hielo", category="serious", penalty=-1, pg_per_week=1, campaign=world.campaign_a
        )
        play(world, steps)
        first = exported(world.campaign_a)
        for importer in (world.gm_a, world.gm_b):  # by its own GM, or by another: names are kept by name
            restored = backup.import_campaign(copy.deepcopy(first), importer)
            assert text(exported(restored)) == text(first)
        assert_reachable(restored)
    finally:
        transaction.savepoint_rollback(savepoint)


# --- one change anywhere ------------------------------------------------------------------------------------------


def paths(value: Any, path: tuple = ()) -> list[tuple]:
    """Every place in a JSON value: each member and item, containers too."""
    found = [path] if path else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, (*path, index))
    return found


def scalars(value: Any) -> set[str]:
    if isinstance(value, dict):
        return {json.dumps(k) for k in value} | {s for item in value.values() for s in scalars(item)}
    if isinstance(value, list):
        return {s for item in value for s in scalars(item)}
    return {json.dumps(value)}


BIG = [2**31 - 1, 2**31, 2**63 - 1, 2**63, -(2**63), 10**30]
leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from(BIG),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
    st.sampled_from(["", " ", "c1", "c99", "d1", "e1", "disease:d1", "disease:c1", "illness", "attack", "serious"]),
)
json_value = st.recursive(
    leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


# Values at the edges of what the actions take, by the type of the value they replace: empty, blank, NUL, invisible,
# untrimmed and one past each length of a name, a username, a dice expression or notes; numbers one past each range
# of docs/rules.md §7.11 and of a sheet, huge ones; and the wrong type.
LENGTHS = (dice.MAX_EXPRESSION_LENGTH, DISEASE_NAME_LENGTH, NAME_LENGTH, USERNAME_LENGTH, NOTES_LENGTH)
EDGES: dict[type, list[Any]] = {
    str: ["", " ", "\x00", "\u200b", " a", "a ", "a b", "#", 7, None, *("a" * (n + 1) for n in LENGTHS)],
    int: [0, -1, 1, 2, 13, 21, 31, 61, 101, 301, 1001, 2001, 10_001, *BIG, "1", None, True, 1.5],
}


@st.composite
def mutated(draw: st.DrawFn, document: dict[str, Any], boundary: bool = False) -> tuple[tuple, Any, dict[str, Any]]:
    """The document with the value at one place replaced: by one of its own values (another key, a nearby number, a
    neighbour's date), a number just out of range, or any JSON value; or that member dropped. `boundary`: a text or
    a number is as likely replaced by a value at the edge of what some field takes (EDGES)."""
    document = copy.deepcopy(document)
    where = draw(st.sampled_from(paths(document)))
    parent = document
    for key in where[:-1]:
        parent = parent[key]
    old = parent[where[-1]]
    own = sorted(scalars(document))
    nearby = [old + 1, old - 1, old * 2, -old] if type(old) is int else []
    hows = ["own", "own", "nearby", "any", "drop"] if nearby else ["own", "own", "any", "drop"]
    if boundary and type(old) in (str, int):
        hows = ["edge", "edge", "edge", *hows]
    how = draw(st.sampled_from(hows))
    if how == "drop":
        del parent[where[-1]]
        return where, "(dropped)", document
    new = {
        "own": lambda: json.loads(draw(st.sampled_from(own))),
        "nearby": lambda: draw(st.sampled_from(nearby)),
        "any": lambda: draw(json_value),
        "edge": lambda: draw(st.sampled_from(EDGES[type(old)])),
    }[how]()
    parent[where[-1]] = new
    return where, new, document


@pytest.fixture
def base(world: World) -> dict[str, Any]:
    return exported(story(world))


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_document_changed_anywhere_is_refused_or_imports_to_a_reachable_state(world: World, base, data):
    where, new, document = data.draw(mutated(base), label="change")
    savepoint = transaction.savepoint_create()
    try:
        try:
            restored = backup.import_campaign(document, world.gm_b)
        except actions.ActionError as error:
            assert error.message, where
            return
        assert_reachable(restored)
    finally:
        transaction.savepoint_rollback(savepoint)


@st.composite
def payload_mutated(draw: st.DrawFn, document: dict[str, Any]) -> tuple[tuple, Any, dict[str, Any]]:
    """The document with one field of one entry's details changed (issue 48): at any depth, of an entry of any kind
    (each kind as likely as another, however often the log has it)."""
    document = copy.deepcopy(document)
    entries = document["events"]
    kind = draw(st.sampled_from(sorted({entry["action"] for entry in entries})))
    index = draw(st.sampled_from([n for n, entry in enumerate(entries) if entry["action"] == kind]))
    details = {"details": document["events"][index]["details"]}
    where, new, details = draw(mutated(details, boundary=True))
    if "details" in details:
        document["events"][index]["details"] = details["details"]
    else:  # the details themselves dropped
        del document["events"][index]["details"]
    return (index, *where), new, document


@settings(max_examples=examples(50), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_an_entrys_details_changed_are_refused_or_import_and_travel_again(world: World, base, data):
    """Issue 48: every payload of every kind is checked on import as its action would write it: a change to any one
    field of an entry's details is refused with a message, or imports to a state the app could reach (its export
    taken again at every undo) — and what imports exports and imports again, the same document."""
    where, new, document = data.draw(payload_mutated(base), label="change")
    savepoint = transaction.savepoint_create()
    try:
        try:
            restored = backup.import_campaign(document, world.gm_b)
        except actions.ActionError as error:
            assert error.message, where
            return
        assert_within_limits(restored)
        again = exported(restored)
        assert text(exported(backup.import_campaign(copy.deepcopy(again), world.gm_b))) == text(again), where
        assert_reachable(restored, exportable=True)
    finally:
        transaction.savepoint_rollback(savepoint)
