"""docs/rules.md §4, "dead means PG 0, always", on every path: the engine, the actions (a CON edit included), the
pages and the admin. A character is dead exactly when its PG is 0 or a death is recorded, and a dead one stays at 0."""

from dataclasses import replace

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from campaigns.models import Event
from characters.models import Character
from play.log.pages import table_log
from rules import actions, engine
from rules.damage import Attack, Gas
from rules.engine import DAY, HOUR, Health, Refused, Wound
from tests.helpers import World, client_for, death_invariant_violations, log_mismatches, reload, stored_health

# --- the engine ------------------------------------------------------------------------------------------------------


def test_a_con_edit_that_brings_pg_to_zero_kills_now():
    health = engine.advance(Health(8, [Wound("attack", 75)]), 12 * HOUR)  # half-way to the next PG
    assert health.progress and health.pg == 5
    dead = engine.change_constitution(health, 7)
    assert (dead.pg, dead.max_pg, dead.died_at, dead.dead) == (0, 70, 12 * HOUR, True)
    assert dead.progress == ()  # docs/rules.md §7.2: death clears the progress
    assert dead.wounds == health.wounds  # the damage stays


def test_a_con_edit_to_exactly_the_damage_kills():
    assert engine.change_constitution(Health(8, [Wound("attack", 70)]), 7).died_at == 0


def test_a_con_edit_that_leaves_pg_keeps_the_damage():
    health = Health(8, [Wound("attack", 75)], now=DAY)
    lower, higher = engine.change_constitution(health, 8), engine.change_constitution(health, 10)
    assert (lower, higher.pg, higher.max_pg, higher.died_at) == (health, 25, 100, None)


def test_a_raised_con_does_not_revive_the_dead():
    dead = engine.apply_wound(Health(8, now=40), Wound("attack", 80))
    assert dead.died_at == 40
    raised = engine.change_constitution(dead, 30)
    assert (raised.pg, raised.max_pg, raised.died_at, raised.dead) == (0, 300, 40, True)
    assert engine.advance(raised, 30 * DAY).pg == 0  # nor does time


def test_a_recorded_death_means_zero_pg_whatever_the_con():
    health = Health(30, died_at=5)
    assert (health.pg, health.dead, health.penalties.dead) == (0, True, True)


def test_zero_pg_means_dead_even_before_the_death_is_recorded():
    health = Health(1, [Wound("attack", 10)])
    assert health.died_at is None and health.dead


def test_a_raised_con_does_not_revive_zero_pg_without_a_recorded_death():
    """A state at 0 PG whose death was never recorded (the rows the old CON-edit bug left behind) is dead too: a raised
    CON keeps it at 0 and records the death now, as an advance does."""
    health = Health(8, [Wound("attack", 75)], now=300)
    legacy = replace(health, constitution=7)  # what the old edit stored: 0 PG, no death
    assert legacy.pg == 0 and legacy.dead and legacy.died_at is None
    raised = engine.change_constitution(legacy, 9)
    assert (raised.pg, raised.dead, raised.died_at) == (0, True, 300)


@pytest.mark.parametrize("damage", [0, 10, 45])
def test_the_exertion_check_is_refused_at_five_pg_or_more(damage: int):
    with pytest.raises(Refused) as refused:
        engine.exertion_check(Health(5, [Wound("attack", damage)]), 12)
    assert refused.value.reason == "exertion"


def test_the_exertion_check_is_refused_for_the_dead():
    with pytest.raises(Refused) as refused:
        engine.exertion_check(Health(5, [Wound("attack", 50)], died_at=0), 12)
    assert refused.value.reason == "dead"


@given(
    constitution=st.integers(1, 30),
    damage=st.lists(st.integers(0, 200), max_size=4),
    died=st.booleans(),
    new=st.integers(1, 30),
)
def test_after_any_con_edit_dead_means_zero_pg(constitution, damage, died, new):
    health = Health(constitution, [Wound("attack", amount) for amount in damage], now=99)
    if died:
        health = replace(health, died_at=7)
    after = engine.change_constitution(health, new)
    assert after.dead == (after.pg == 0)
    assert after.dead == (after.died_at is not None)
    if health.dead:
        assert after.pg == 0 and after.died_at == (7 if died else 99)
    assert after.wounds == health.wounds and after.max_pg == 10 * new


# --- the actions -----------------------------------------------------------------------------------------------------


def edit(world: World, character: Character, **changes) -> actions.Outcome:
    sheet = replace(actions.Sheet.of(Character.everyone.get(pk=character.pk)), **changes)
    return actions.edit_character(world.campaign_a, character, sheet, by=world.gm_a)


def log_text(world: World) -> str:
    return client_for(world.gm_a).get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()


def test_a_con_edit_to_zero_pg_kills_logs_it_and_undo_revives_exactly(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=75), by=world.gm_a)
    actions.advance_clock(world.campaign_a, 12 * HOUR + 30, by=world.gm_a)  # half-way to a PG back
    before = stored_health(world.char_a1)
    assert before.progress and before.pg == 5

    outcome = edit(world, world.char_a1, constitution=7)

    aldara = reload(world.char_a1)
    assert (aldara.constitution, aldara.pg, aldara.died_at, aldara.dead) == (7, 0, 12 * HOUR + 30, True)
    assert aldara.recovery_progress == {}
    assert outcome.event.action == "character_edited"
    assert outcome.event.details["changes"] == {"constitution": [8, 7]}
    [entry] = [entry for entry in table_log(world.campaign_a) if entry.event == outcome.event]
    assert (entry.when, entry.title) == ("Día 1, 12:00:30", "Hoja de Aldara editada")
    assert entry.lines == ["CON: 8 → 7", "Aldara: 5/80 → 0/70 PG", "Aldara muere (Día 1, 12:00:30)"]
    html = log_text(world)
    assert "CON: 8 → 7" in html and "Aldara muere (Día 1, 12:00:30)" in html
    assert log_mismatches(world.campaign_a) == [] and death_invariant_violations() == []

    actions.undo(world.campaign_a, by=world.gm_a, event=outcome.event)
    assert stored_health(world.char_a1) == before  # CON, PG, progress: exactly as before the edit
    assert reload(world.char_a1).constitution == 8
    assert log_mismatches(world.campaign_a) == []


def test_raising_the_con_of_the_dead_keeps_them_at_zero(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=80), by=world.gm_a)
    actions.advance_clock(world.campaign_a, DAY, by=world.gm_a)
    outcome = edit(world, world.char_a1, constitution=20)
    aldara = reload(world.char_a1)
    assert (aldara.constitution, aldara.max_pg, aldara.pg, aldara.died_at) == (20, 200, 0, 0)
    [entry] = [entry for entry in table_log(world.campaign_a) if entry.event == outcome.event]
    assert entry.title == "Hoja de Aldara editada"
    assert entry.lines == ["CON: 8 → 20", "Aldara: 0/80 → 0/200 PG"]  # no "muere": she died a day ago
    assert outcome.event.after[str(aldara.pk)]["died_at"] == 0
    assert death_invariant_violations() == [] and log_mismatches(world.campaign_a) == []


def test_lowering_con_moves_pg_and_keeps_the_damage(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a2], Attack(amount=30), by=world.gm_a)
    edit(world, world.char_a2, constitution=10)
    borin = reload(world.char_a2)
    assert (borin.pg, borin.died_at) == (70, None)


def test_an_edit_that_changes_nothing_logs_nothing(world: World):
    version = world.campaign_a.version
    outcome = edit(world, world.char_a1)
    assert outcome.event is None
    world.campaign_a.refresh_from_db()
    assert world.campaign_a.version == version and not Event.objects.exists()


def test_the_dead_at_zero_pg_is_a_database_rule(world: World):
    with pytest.raises(IntegrityError), transaction.atomic():
        Character.objects.filter(pk=world.char_a1.pk).update(died_at=0)  # dead at 80 PG: refused


def test_a_character_left_at_zero_pg_by_the_old_edit_stays_dead_when_its_con_is_raised(world: World):
    """Rows written before this rule could be at 0 PG with no death recorded (issue 9: CON 8, 75 lost, CON edited to
    7). They are dead (docs/rules.md §4): raising CON must not bring them back."""
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=75), by=world.gm_a)
    actions.advance_clock(world.campaign_a, HOUR, resting=[], by=world.gm_a)
    Character.objects.filter(pk=world.char_a1.pk).update(constitution=7, pg=0)  # the old bug's leftover
    assert reload(world.char_a1).dead
    edit(world, world.char_a1, constitution=9)
    aldara = reload(world.char_a1)
    assert (aldara.constitution, aldara.pg, aldara.died_at) == (9, 0, HOUR)


def test_a_dead_character_takes_more_damage_at_zero(world: World):
    edit(world, world.npc_a, constitution=1)  # 10 PG
    actions.apply_damage(world.campaign_a, [world.npc_a], Gas(turns=10), by=world.gm_a)
    edit(world, world.npc_a, constitution=30)
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=5), by=world.gm_a)
    tomas = reload(world.npc_a)
    assert (tomas.pg, tomas.died_at, tomas.max_pg) == (0, 0, 300)
    assert death_invariant_violations() == [] and log_mismatches(world.campaign_a) == []


# --- the pages -------------------------------------------------------------------------------------------------------

PATIENT_LINKS = ("treat_wounds", "expose", "treat_illness", "medicate", "exertion")


def dead_aldara(world: World, raised_to: int | None = None) -> Character:
    """Aldara killed by a CON edit through the GM's form, her CON then raised if asked."""
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=75), by=world.gm_a)
    data = {"name": "Aldara", "constitution": "7", "jump": "0", "heal_wounds": "0", "weight_kg": "70", "notes": ""}
    data["player"] = str(world.player_a.pk)
    url = reverse("character_edit", args=[world.campaign_a.pk, world.char_a1.pk])
    client = client_for(world.gm_a)
    assert client.post(url, data).status_code == 302
    if raised_to is not None:
        assert client.post(url, {**data, "constitution": str(raised_to)}).status_code == 302
    return reload(world.char_a1)


@pytest.mark.parametrize("raised_to", [None, 20])
def test_the_gms_table_shows_the_dead_at_zero_with_only_the_damage_link(world: World, raised_to):
    aldara = dead_aldara(world, raised_to)
    max_pg = 10 * (raised_to or 7)
    response = client_for(world.gm_a).get(reverse("campaign", args=[world.campaign_a.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<strong class="pg-value">0</strong> / {max_pg} · <strong class="dead-label">muerto</strong>' in html
    assert f"damage/?character={aldara.pk}" in html  # a wound is still recorded on the dead
    for action in PATIENT_LINKS:
        assert f"{action}/?character={aldara.pk}" not in html, action
    assert f"exertion/?character={world.char_a2.pk}" not in html  # 120 PG: no exertion either


@pytest.mark.parametrize("raised_to", [None, 20])
def test_the_sheet_shows_the_dead_at_zero_without_healing_times(world: World, raised_to):
    dead_aldara(world, raised_to)
    url = reverse("character", args=[world.campaign_a.pk, world.char_a1.pk])
    for user in (world.gm_a, world.player_a):
        response = client_for(user).get(url)
        assert response.status_code == 200
        html = response.content.decode()
        assert f'0</strong> / {10 * (raised_to or 7)} · <strong class="dead-label">muerto' in html
        assert "Sana del todo" not in html and "Con pocos PG" not in html
        assert "Aldara muere" in html


def test_the_live_stream_refuses_no_dead_player(world: World):
    """Under WSGI the stream answers 204: what matters here is that a dead character's player is still let in."""
    dead_aldara(world)
    assert client_for(world.player_a).get(reverse("campaign_stream", args=[world.campaign_a.pk])).status_code == 204


# --- the admin -------------------------------------------------------------------------------------------------------


@pytest.fixture
def admin(db):
    return get_user_model().objects.create_superuser("root", password="pw")


def admin_client(admin) -> Client:
    client = Client()
    client.force_login(admin)
    return client


def admin_url(character: Character, page: str = "change") -> str:
    return f"/admin/characters/character/{character.pk}/{page}/"


def test_the_admin_shows_con_read_only(world: World, admin):
    html = admin_client(admin).get(admin_url(world.char_a1)).content.decode()
    assert 'name="name"' in html and 'name="notes"' in html
    for field in ("constitution", "jump", "heal_wounds", "weight_kg", "player"):
        assert f'name="{field}"' not in html, field


def test_a_name_saved_in_the_admin_is_a_logged_edit_and_a_posted_con_does_nothing(world: World, admin):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=75), by=world.gm_a)
    data = {"name": "Aldara de la Torre", "notes": "Vista por el admin.", "constitution": "7", "player": ""}
    response = admin_client(admin).post(admin_url(world.char_a1), data)
    assert response.status_code == 302
    aldara = reload(world.char_a1)
    assert (aldara.name, aldara.notes, aldara.constitution, aldara.player, aldara.pg, aldara.died_at) == (
        "Aldara de la Torre",
        "Vista por el admin.",
        8,
        world.player_a,
        5,
        None,
    )
    event = Event.objects.filter(campaign=world.campaign_a).latest("id")
    assert (event.action, event.actor) == ("character_edited", admin)
    assert set(event.details["changes"]) == {"name", "notes"}
    actions.undo(world.campaign_a, by=world.gm_a, event=event)
    assert (reload(world.char_a1).name, reload(world.char_a1).notes) == ("Aldara", "")


def test_the_admin_edits_a_dead_character_without_a_500(world: World, admin):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=80), by=world.gm_a)
    client = admin_client(admin)
    assert client.get(admin_url(world.char_a1)).status_code == 200
    response = client.post(admin_url(world.char_a1), {"name": "Aldara (†)", "notes": "", "constitution": "30"})
    assert response.status_code == 302
    aldara = reload(world.char_a1)
    assert (aldara.name, aldara.constitution, aldara.pg, aldara.died_at) == ("Aldara (†)", 8, 0, 0)
    assert death_invariant_violations() == [] and log_mismatches(world.campaign_a) == []


def test_the_admin_neither_adds_nor_deletes_characters(world: World, admin):
    client = admin_client(admin)
    assert client.get("/admin/characters/character/add/").status_code == 403
    assert client.post(admin_url(world.char_a1, "delete"), {"post": "yes"}).status_code == 403
    assert Character.objects.filter(pk=world.char_a1.pk).exists()


def test_the_admin_lists_characters(world: World, admin):
    actions.remove_character(world.campaign_a, world.npc_a, by=world.gm_a)
    response = admin_client(admin).get("/admin/characters/character/")
    assert response.status_code == 200 and "Aldara" in response.content.decode()
