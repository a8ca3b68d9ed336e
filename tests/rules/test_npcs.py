"""Issue 25, quick NPCs: several characters added in one action from a numbered name, and several removed in one;
each is one log entry that one undo reverses, within the site's cap; refusals change nothing; both go through a
campaign backup."""

import pytest

from campaigns.models import Event, Invitation
from characters.models import Character
from play.log.pages import sheet_log, table_log
from rules import actions, backup, queries
from rules.actions import ActionError, Sheet
from rules.damage import Attack
from rules.models import CalledCheck, CallStatus, CheckKind
from tests.campaigns.documents import through_json
from tests.helpers import World, log_mismatches, notify_listener, refused, run_at_once


def titles(world: World) -> list[str]:
    return [entry.title for entry in table_log(world.campaign_a)]


def in_play(world: World) -> list[str]:
    return list(Character.objects.filter(campaign=world.campaign_a).values_list("name", flat=True))


def undo_latest(world: World) -> actions.Outcome:
    return actions.undo(world.campaign_a, by=world.gm_a, event=queries.latest_undoable(world.campaign_a))


GUARD = Sheet("Guardia", 6, jump=2, heal_wounds=1, weight_kg=80, party_view="band")


# --- names -----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "count", "taken", "names"),
    [
        ("Guardia", 3, [], ["Guardia 1", "Guardia 2", "Guardia 3"]),
        ("Guardia", 2, ["Guardia 1", "Guardia 4", "Guardia", "Guardiana 9"], ["Guardia 5", "Guardia 6"]),
        ("  Lobo # del bosque ", 2, ["Lobo 2 del bosque"], ["Lobo 3 del bosque", "Lobo 4 del bosque"]),
        ("Orco (#)", 1, ["Orco (x)", "Orco 7"], ["Orco (1)"]),  # the pattern's own characters are not a regex
        ("Rata", 1, ["Rata ١٢"], ["Rata 1"]),  # Arabic-Indic digits are not a number here
    ],
)
def test_names_are_numbered_on_from_the_highest_taken(pattern, count, taken, names):
    assert actions.numbered_names(pattern, count, taken) == names


# --- adding several --------------------------------------------------------------------------------------------


def test_adding_several_is_one_entry_and_one_undo(world: World):
    actions.add_character(world.campaign_a, Sheet("Guardia 1", 5), by=world.gm_a)
    outcome = actions.add_characters(world.campaign_a, GUARD, 6, by=world.gm_a)
    names = [c.name for c in outcome.characters]
    assert names == [f"Guardia {n}" for n in range(2, 8)]
    for guard in Character.objects.filter(pk__in=[c.pk for c in outcome.characters]):
        assert (guard.constitution, guard.jump, guard.heal_wounds, guard.weight_kg, guard.party_view) == (
            6,
            2,
            1,
            80,
            "band",
        )
        assert (guard.pg, guard.player, guard.died_at) == (60, None, None)
    event = outcome.event
    assert event.action == "characters_added" and event.characters == sorted(c.pk for c in outcome.characters)
    assert set(event.after) == {str(c.pk) for c in outcome.characters} and event.before == {}
    [line] = [e for e in table_log(world.campaign_a) if e.event.pk == event.pk]
    assert line.title == "Añadir varios: Guardia 2…7"
    assert line.lines == [", ".join(names)]
    assert log_mismatches(world.campaign_a) == []

    undo_latest(world)
    assert in_play(world) == ["Aldara", "Borin", "Guardia 1", "Tomás"]
    assert not Character.objects.filter(name__startswith="Guardia ").exclude(name="Guardia 1").exists()
    assert titles(world)[0].startswith("Deshecho")
    assert log_mismatches(world.campaign_a) == []


def test_the_cap_holds_for_the_whole_group(world: World, settings):
    present = Character.objects.filter(campaign=world.campaign_a).count()
    settings.CHARACTERS_PER_CAMPAIGN = present + 3
    error = refused(world, lambda: actions.add_characters(world.campaign_a, GUARD, 4, by=world.gm_a))
    assert error.field == "count"
    assert error.message == (
        f"La campaña tiene {present} personajes y el máximo de este sitio es {present + 3}: caben 3 más, no 4. "
        "No se ha añadido ninguno."
    )
    actions.add_characters(world.campaign_a, GUARD, 3, by=world.gm_a)
    assert Character.objects.filter(campaign=world.campaign_a).count() == present + 3
    refused(world, lambda: actions.add_characters(world.campaign_a, GUARD, 1, by=world.gm_a))
    refused(world, lambda: actions.add_character(world.campaign_a, Sheet("Uno más", 5), by=world.gm_a))


@pytest.mark.parametrize(
    ("sheet", "count", "field"),
    [
        (GUARD, 0, "count"),
        (GUARD, 10_000, "count"),
        (GUARD, -1, "count"),
        (Sheet("", 6), 2, "name"),
        (Sheet("   ", 6), 2, "name"),
        (Sheet("Gu\x00ardia", 6), 2, "name"),
        (Sheet("G" * 100_000, 6), 2, "name"),
        (Sheet("G" * 99, 6), 10, "name"),  # the pattern fits, "G…G 10" does not
        (Sheet("Guardia", 0), 2, "constitution"),
        (Sheet("Guardia", 6, weight_kg=100_000), 2, "weight_kg"),
        (Sheet("Guardia", 6, jump=-3), 2, "jump"),
        (Sheet("Guardia", 6, notes="\x00"), 2, "notes"),
        (Sheet("Guardia", 6, party_view="todo"), 2, "party_view"),
    ],
)
def test_bad_input_changes_nothing(world: World, sheet, count, field):
    error = refused(world, lambda: actions.add_characters(world.campaign_a, sheet, count, by=world.gm_a))
    assert error.field == field and error.message


def test_a_player_of_another_campaign_is_refused(world: World):
    sheet = Sheet("Guardia", 6, player_id=world.gm_b.pk)
    error = refused(world, lambda: actions.add_characters(world.campaign_a, sheet, 2, by=world.gm_a))
    assert error.field == "player"


# --- removing several ------------------------------------------------------------------------------------------


def test_removing_several_is_one_entry_and_one_undo(world: World):
    guards = actions.add_characters(world.campaign_a, GUARD, 3, by=world.gm_a).characters
    actions.apply_damage(world.campaign_a, [guards[0]], Attack(amount=7), by=world.gm_a)
    call = actions.call_check(
        world.campaign_a, [world.char_a1], actions.Call(CheckKind.FALL, height_m=6), by=world.gm_a
    )
    owed = CalledCheck.objects.get(closed=None, character=world.char_a1)
    assert world.invite_a.pending and call.event is not None
    chosen = [guards[0], guards[2], world.npc_a, world.char_a1]
    outcome = actions.remove_characters(world.campaign_a, chosen, by=world.gm_a)
    assert sorted(outcome.event.characters) == sorted(c.pk for c in chosen)
    assert set(in_play(world)) == {"Borin", "Guardia 2"}
    world.invite_a.refresh_from_db()
    owed.refresh_from_db()
    assert not world.invite_a.pending and owed.status == CallStatus.CANCELLED
    assert titles(world)[0] == "Retirados de la campaña: Aldara, Tomás, Guardia 1, Guardia 3"
    assert log_mismatches(world.campaign_a) == []

    undo_latest(world)
    assert set(in_play(world)) == {"Aldara", "Borin", "Tomás", "Guardia 1", "Guardia 2", "Guardia 3"}
    assert Character.objects.get(pk=guards[0].pk).pg == 53  # back as it was, wounds and all
    world.invite_a.refresh_from_db()
    owed.refresh_from_db()
    assert world.invite_a.pending and owed.status == CallStatus.PENDING
    assert log_mismatches(world.campaign_a) == []


def test_a_players_log_names_only_their_own_character(world: World):
    actions.remove_characters(world.campaign_a, [world.npc_a, world.char_a1, world.char_a2], by=world.gm_a)
    actions.undo(world.campaign_a, by=world.gm_a)
    character = Character.objects.get(pk=world.char_a1.pk)
    entries = [e for e in sheet_log(world.campaign_a, character) if e.event.action == "characters_removed"]
    assert [e.title for e in entries] == ["Retirados de la campaña: Aldara"]


@pytest.mark.parametrize("whom", ["nobody", "another campaign's", "twice", "removed"])
def test_removing_bad_choices_changes_nothing(world: World, whom):
    if whom == "removed":
        actions.remove_character(world.campaign_a, world.npc_a, by=world.gm_a)
    chosen = {
        "nobody": [],
        "another campaign's": [world.npc_a, world.char_b],
        "twice": [world.npc_a.pk, world.npc_a.pk, 10**12],
        "removed": [world.npc_a, world.char_a1],
    }[whom]
    error = refused(world, lambda: actions.remove_characters(world.campaign_a, chosen, by=world.gm_a))
    assert error.field == "characters" and error.message


# --- live and backups ----------------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_notification_names_every_character(world: World):
    from rules import notify  # noqa: PLC0415

    with notify_listener() as listener:
        guards = actions.add_characters(world.campaign_a, GUARD, 3, by=world.gm_a).characters
        actions.remove_characters(world.campaign_a, guards[:2], by=world.gm_a)
        received = [notify.Change.parse(n.payload) for n in listener.notifies(timeout=5, stop_after=2)]
    assert [sorted(r.characters) for r in received] == [sorted(g.pk for g in guards), sorted(g.pk for g in guards[:2])]


def test_a_backup_carries_both(world: World):
    actions.add_characters(world.campaign_a, GUARD, 3, by=world.gm_a)
    guards = list(Character.objects.filter(name__startswith="Guardia"))
    actions.remove_characters(world.campaign_a, guards[:2], by=world.gm_a)
    actions.add_characters(world.campaign_a, Sheet("Lobo", 3), 2, by=world.gm_a)
    undo_latest(world)
    first = through_json(backup.export_campaign(world.campaign_a))
    restored = backup.import_campaign(first, world.gm_a)
    second = through_json(backup.export_campaign(restored))
    assert second["events"] == first["events"] and second["characters"] == first["characters"]
    assert log_mismatches(restored) == []
    assert sorted(Character.objects.filter(campaign=restored).values_list("name", flat=True)) == sorted(in_play(world))
    # Undo keeps working in the copy: the removal comes undone there too.
    actions.undo(restored, by=world.gm_a, event=queries.latest_undoable(restored))
    assert Character.objects.filter(campaign=restored, name__startswith="Guardia").count() == 3
    assert not Invitation.objects.filter(campaign=restored).exists()


@pytest.mark.django_db(transaction=True)
def test_the_same_removal_of_several_sent_twice_at_once_happens_once(world: World):
    """Two tabs remove the same characters at the same moment: one removal is logged, the other is refused in words."""
    chosen = [world.char_a2.pk, world.npc_a.pk]
    before = Event.objects.filter(campaign=world.campaign_a).count()

    def remove() -> object:
        return actions.remove_characters(world.campaign_a.pk, chosen, by=world.gm_a)

    errors = run_at_once([remove, remove])
    assert len(errors) == 1 and isinstance(errors[0], ActionError), errors
    assert Event.objects.filter(campaign=world.campaign_a).count() == before + 1
    assert set(Character.everyone.filter(pk__in=chosen).values_list("removed", flat=True)) == {True}
    actions.undo(world.campaign_a, by=world.gm_a)
    assert set(Character.everyone.filter(pk__in=chosen).values_list("removed", flat=True)) == {False}
