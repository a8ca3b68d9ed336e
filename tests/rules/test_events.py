"""The log's payloads (rules.events): every action writes one that reads back as itself, every reference is found, and
an entry no action could write is refused where it is read, saying where."""

from datetime import UTC, datetime, timedelta

import pytest

from campaigns.models import Event, Invitation
from characters.models import Character
from rules import actions, engine, events, queries
from rules.actions import Call, DiseaseSheet, Sheet
from rules.backup import references
from rules.damage import Attack, Collision, Drowning, Fall, Gas
from rules.events import EventKind
from rules.models import CheckKind, Illness
from tests.helpers import World, plague, reload, snapshot


def play_every_kind(world: World) -> None:
    """At least one event of each kind, through the actions, as a table would."""
    a, gm = world.campaign_a, world.gm_a
    Character.objects.filter(pk__in=[world.char_a1.pk, world.char_a2.pk]).update(heal_wounds=3)
    actions.apply_damage(a, [world.char_a1, world.npc_a], Attack(expression="2d6+1"), by=gm)
    actions.apply_damage(a, [world.char_a1], Collision(speed_kmh=30, weight_kg=80), by=gm)
    actions.apply_damage(a, [world.char_a2], Fall(height_m=6, dice={world.char_a2.pk: 3}), by=gm)
    actions.apply_damage(a, [world.char_a2], Drowning(turns=2), by=gm)
    actions.apply_damage(a, [world.char_a2], Gas(turns=1), by=gm)
    actions.advance_clock(a, 3600, by=gm, not_resting=[world.char_a2])
    dice = {world.char_a1.pk: 1, world.char_a2.pk: 12}
    actions.expose(a, [world.char_a1, world.char_a2], plague(), by=gm, dice_by_character=dice)
    actions.treat_wounds(a, world.char_a1, world.char_a1, by=gm)
    episode = Illness.objects.get(character=world.char_a1)
    actions.medicate(a, world.char_a1, episode, by=gm)
    actions.treat_illness(a, world.char_a1, episode, world.char_a2, by=gm)
    actions.apply_damage(a, [world.npc_a], Attack(amount=reload(world.npc_a).pg - 3), by=gm)
    actions.exertion(a, world.npc_a, by=gm, die=12)
    added = actions.add_character(a, Sheet("Ilse", 6), by=gm).characters[0]
    actions.edit_character(a, added, Sheet("Ilse la Sabia", 7, jump=2), by=gm)
    link = actions.create_invitation(a, added, by=gm).event
    assert link is not None
    actions.revoke_invitation(a, events.decode(link.action, link.details).invitation, by=gm)  # type: ignore[attr-defined]
    actions.remove_character(a, added, by=gm)
    guards = actions.add_characters(a, Sheet("Guardia", 5), 3, by=gm).characters  # quick NPCs (issue 25)
    actions.remove_characters(a, guards[:2], by=gm)
    actions.save_template(a, Sheet("Lobo", 3, weight_kg=40), 4, by=gm)
    actions.save_template(a, Sheet("Lobo", 4, weight_kg=45), 2, by=gm)
    actions.delete_template(a, a.npc_templates.get(name="Lobo"), by=gm)
    disease = actions.add_disease(a, DiseaseSheet("Fiebre del pantano", "common", -1), by=gm).event
    assert disease is not None
    disease_id = events.decode(disease.action, disease.details).disease  # type: ignore[attr-defined]
    actions.edit_disease(a, disease_id, DiseaseSheet("Fiebre del pantano negra", "common", -2), by=gm)
    actions.retire_disease(a, disease_id, by=gm)
    actions.restore_disease(a, disease_id, by=gm)
    actions.edit_campaign(a, by=gm, name="La Cripta", party_view="exact")
    co_gm_link = actions.create_co_gm_invitation(a, by=gm).event  # co-GMs (issue 25): a link revoked, one claimed
    assert co_gm_link is not None
    actions.revoke_co_gm_invitation(a, co_gm_link.details["invitation"], by=gm)
    co_gm_link = actions.create_co_gm_invitation(a, by=gm).event
    assert co_gm_link is not None
    actions.claim_invitation(Invitation.objects.get(pk=co_gm_link.details["invitation"]).token, world.player_a)
    actions.remove_co_gm(a, world.player_a, by=gm)
    # Time between sessions (issue 52): turned on, one tick.
    runs_from = datetime(2026, 12, 7, 5, tzinfo=UTC)
    actions.set_running_time(a, by=gm, runs=True, rate=engine.DAY, hour=6, zone="Europe/Madrid", now=runs_from)
    actions.tick(a, now=runs_from + timedelta(days=2))
    actions.start_session(a, by=gm)  # game sessions (issue 25)
    actions.end_session(a, by=gm)
    actions.share_recap(a, 1, by=gm)
    called = actions.call_check(a, [world.char_a1, world.char_a2], Call(CheckKind.FALL, height_m=4), by=gm)
    pending = queries.pending_checks(a)
    actions.answer_check(a, pending[0], by=gm, die=10)
    actions.cancel_check(a, pending[1:], by=gm)
    assert called.event is not None
    actions.undo(a, by=gm)
    actions.claim_invitation(world.invite_a.token, world.player_a2)


def test_every_action_writes_a_payload_that_reads_back_as_itself(world: World):
    play_every_kind(world)
    seen = set()
    for event in Event.objects.filter(campaign=world.campaign_a):
        payload = events.payload_of(event)
        assert isinstance(payload, events.PAYLOADS[EventKind(event.action)])
        assert events.stored(payload) == event.details, event.action
        seen.add(event.action)
    assert seen == set(EventKind.values)


def test_every_reference_is_found_and_mapped(world: World):
    play_every_kind(world)
    # Whom an entry names: those it is about, or any character of the campaign (an advance names everyone resting).
    characters = set(Character.everyone.filter(campaign=world.campaign_a).values_list("pk", flat=True))
    for event in Event.objects.filter(campaign=world.campaign_a):
        payload = events.payload_of(event)
        found = references.references(payload)
        for what, value in found:
            assert what in {"character", "disease", "event", "invitation", "user"}, (event.action, what)
            if what == "character":
                assert int(value) in characters | set(event.characters), (event.action, value)
        keyed = references.mapped(payload, lambda what, value: None if value is None else f"{what[0]}{value}")
        assert references.references(keyed) == [
            (what, None if value is None else f"{what[0]}{value}") for what, value in found
        ], event.action


@pytest.mark.parametrize(
    ("kind", "details", "where"),
    [
        (EventKind.DAMAGE, {"kind": "attack", "damage": {"1": 2}, "dice": 5}, "details.dice"),
        (EventKind.DAMAGE, {"kind": "bite", "damage": {}}, "details.kind"),
        (EventKind.DAMAGE, {"kind": "attack", "damage": {"1": -2}}, "details.damage[...]"),
        (EventKind.DAMAGE, {"kind": "fall", "damage": {}, "height_m": 3}, "details"),
        (EventKind.DAMAGE, {"kind": "attack", "damage": {"1": 2}, "pg": {"2": [5, 3]}}, "details"),
        (EventKind.ADVANCE, {"seconds": "60"}, "details.seconds"),
        (EventKind.ADVANCE, {"seconds": 60, "extra": 1}, "details"),
        (EventKind.EXPOSE, {"rolls": []}, "details"),
        (
            EventKind.EXERTION,
            {"rolls": [{"character": 1, "name": "A", "check": "exertion"}], "damage": {}},
            "details.rolls[0]",
        ),
        (EventKind.UNDO, {"event": 1, "action": "undo", "undone": {"details": {}}}, "details"),
        (EventKind.UNDO, {"event": 1, "action": "advance", "undone": {"details": {}}}, "details"),
        (EventKind.CHARACTER_EDITED, {"name": "A", "changes": {"hair": ["red", "grey"]}}, "details.changes"),
        (EventKind.CAMPAIGN_EDITED, {"changes": {"name": ["A"]}}, "details.changes.name"),
        ("teleport", {}, "action"),
    ],
)
def test_an_entry_no_action_could_write_is_refused_saying_where(kind, details, where):
    with pytest.raises(events.DamagedEntry) as refused:
        events.decode(kind, details)
    assert refused.value.where == where


def test_a_damaged_entry_is_refused_by_undo_and_changes_nothing(world: World):
    event = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a).event
    assert event is not None
    del event.details["damage"]
    event.save(update_fields=["details"])
    before = snapshot()
    with pytest.raises(actions.ActionError, match="incompleto o dañado"):
        actions.undo(world.campaign_a, by=world.gm_a, event=event)
    assert snapshot() == before


def test_an_undo_whose_state_names_a_character_not_of_the_campaign_is_refused(world: World):
    event = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a).event
    assert event is not None
    event.before[str(world.char_b.pk)] = event.before[str(world.char_a1.pk)]
    event.save(update_fields=["before"])
    before = snapshot()
    with pytest.raises(actions.ActionError, match="Ese personaje no pertenece a esta campaña"):
        actions.undo(world.campaign_a, by=world.gm_a, event=event)
    assert snapshot() == before


def test_every_kind_has_its_payload_and_words():
    from play.log import WORDING

    assert set(events.PAYLOADS) == set(EventKind)
    assert set(WORDING) == set(events.PAYLOADS.values())
