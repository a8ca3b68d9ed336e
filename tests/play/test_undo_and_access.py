"""Undo from the table and who may act: the views' answers to the GM, a player, another GM and a visitor."""

import pytest
from django.urls import reverse

from campaigns.models import Event
from characters.models import Character
from rules import actions
from rules.damage import Attack, Gas
from rules.models import Disease
from tests.helpers import HTMX, World, client_for, fall_ill, gm_table, plague, snapshot
from tests.regions import element_by_id, elements_of, region_ids

PATIENT_ACTIONS = ("treat_wounds", "treat_illness", "medicate", "exertion")


def act_url(world: World, action: str) -> str:
    return reverse(action, kwargs={"campaign_id": world.campaign_a.pk})


def post(world: World, action: str, data: dict, user=None, htmx: bool = True):
    return client_for(user or world.gm_a).post(act_url(world, action), data, **(HTMX if htmx else {}))


def pg(character: Character) -> int:
    return Character.objects.get(pk=character.pk).pg


# --- undo ------------------------------------------------------------------------------------------------------------


def undo(world: World):
    return client_for(world.gm_a).post(reverse("undo", kwargs={"campaign_id": world.campaign_a.pk}), **HTMX)


def test_undo_button_restores_and_strikes_the_entry_through(world: World):
    damage = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=9), by=world.gm_a).event
    response = undo(world)
    assert response.status_code == 200 and pg(world.char_a1) == 80
    html = response.content.decode()
    # the undo's own entry and the damage's, struck through: each once, and no other entry
    undone = Event.objects.latest("id")
    entries = [e for e in elements_of(html) if e.id.startswith("entry-")]
    assert sorted(e.id for e in entries) == sorted([f"entry-{undone.pk}", f"entry-{damage.pk}"])
    assert 'class="entry undone"' in element_by_id(html, f"entry-{damage.pk}").html
    assert "80</strong> / 80" in element_by_id(html, f"card-{world.char_a1.pk}").html
    assert region_ids(html).count("log-entries") == 1 and response["X-Focus"] == "undo-submit"


def test_undo_button_with_nothing_to_undo_says_so_and_changes_nothing(world: World):
    before = snapshot()
    response = undo(world)
    assert response.status_code == 200 and "No hay nada que deshacer" in response.content.decode()
    assert snapshot() == before


def undo_url(world: World) -> str:
    return reverse("undo", kwargs={"campaign_id": world.campaign_a.pk})


def test_the_undo_button_names_its_event_and_carries_its_id(world: World):
    event = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=7), by=world.gm_a).event
    html = gm_table(world)
    assert "Deshacer: Daño: Ataque físico directo</button>" in html
    assert f'<input type="hidden" name="event" value="{event.pk}">' in html
    actions.edit_character(
        world.campaign_a, world.char_a2, actions.Sheet("Borin", 13, player_id=world.player_a2.pk), by=world.gm_a
    )
    assert "Deshacer: Hoja de Borin editada</button>" in gm_table(world)


def test_with_nothing_to_undo_the_button_is_disabled(world: World):
    html = gm_table(world)
    assert "Nada que deshacer" in html and 'name="event"' not in html
    assert 'id="undo-submit" disabled>' in html


def test_the_undo_button_after_an_action_names_the_next_event(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=7), by=world.gm_a)
    second = actions.advance_clock(world.campaign_a, 3600, by=world.gm_a).event
    response = client_for(world.gm_a).post(undo_url(world), {"event": second.pk}, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and "Deshacer: Daño: Ataque físico directo" in html
    assert 'class="entry undone"' in html


@pytest.mark.parametrize("htmx", [True, False])
def test_a_stale_undo_changes_nothing_and_says_why(world: World, htmx: bool):
    first = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=7), by=world.gm_a).event
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a)
    before = snapshot()
    client = client_for(world.gm_a)
    response = client.post(undo_url(world), {"event": first.pk}, **(HTMX if htmx else {}), follow=not htmx)
    assert response.status_code == 200
    assert "Ese cambio ya se deshizo o ya no es el último: mira el registro." in response.content.decode()
    assert snapshot() == before and pg(world.char_a1) == 68


def test_a_double_submitted_undo_undoes_once(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=7), by=world.gm_a)
    second = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a).event
    client = client_for(world.gm_a)
    assert client.post(undo_url(world), {"event": second.pk}, **HTMX).status_code == 200
    after_one = snapshot()
    response = client.post(undo_url(world), {"event": second.pk}, **HTMX)
    assert "Ese cambio ya se deshizo" in response.content.decode()
    assert snapshot() == after_one and pg(world.char_a1) == 73
    assert Event.objects.filter(campaign=world.campaign_a, undone=True).count() == 1


@pytest.mark.parametrize("value", ["abc", "-1", "0", "٣"])
def test_an_undo_with_a_made_up_event_id_changes_nothing(world: World, value: str):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=7), by=world.gm_a)
    before = snapshot()
    response = client_for(world.gm_a).post(undo_url(world), {"event": value}, **HTMX)
    assert response.status_code == 200 and snapshot() == before


def test_undo_brings_back_a_removed_character(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=8), by=world.gm_a)
    url = reverse("character_delete", args=[world.campaign_a.pk, world.npc_a.pk])
    assert client_for(world.gm_a).post(url).status_code == 302
    html = gm_table(world)
    assert "Deshacer: Tomás sale de la campaña" in html and f'id="character-{world.npc_a.pk}"' not in html
    response = undo(world)
    assert f'id="character-{world.npc_a.pk}"' in response.content.decode()
    assert pg(world.npc_a) == 42


# --- who may act -----------------------------------------------------------------------------------------------------


def valid_posts(world: World, healer: Character) -> dict[str, dict]:
    """For every action, data its GM may post with success (Aldara is wounded and ill with the plague; Borin is at
    3 PG, where each physical action calls for an exertion check)."""
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=3), by=world.gm_a)
    actions.apply_damage(world.campaign_a, [world.char_a2], Attack(amount=117), by=world.gm_a)
    illness = fall_ill(world, world.char_a1, plague())
    return {
        "damage": {"kind": "attack", "amount": "5", "characters": world.char_a1.pk},
        "advance": {"preset": "86400"},
        "expose": {"disease": Disease.objects.get(name="Gripe").pk, "characters": world.char_a1.pk},
        "treat_wounds": {"character": world.char_a1.pk, "healer": healer.pk},
        "treat_illness": {"character": world.char_a1.pk, "illness": illness.pk, "healer": healer.pk},
        "medicate": {"character": world.char_a1.pk, "illness": illness.pk},
        "exertion": {"character": world.char_a2.pk},
    }


def test_the_gm_may_post_every_action(world: World, healer):
    for action, data in valid_posts(world, healer).items():
        assert post(world, action, data).status_code == 200, action
    assert Event.objects.filter(campaign=world.campaign_a).count() == 3 + 7


@pytest.mark.parametrize("persona", ["player_a", "player_a2", "gm_b", "outsider"])
def test_every_action_is_404_for_others_and_changes_nothing(world: World, healer, persona: str):
    user = getattr(world, persona)
    posts = valid_posts(world, healer)
    before = snapshot()
    for action, data in posts.items():
        assert post(world, action, data, user=user).status_code == 404, action
        query = f"?character={world.char_a1.pk}"
        assert client_for(user).get(act_url(world, action) + query, **HTMX).status_code == 404, action
    assert client_for(user).post(reverse("undo", kwargs={"campaign_id": world.campaign_a.pk})).status_code == 404
    assert client_for(user).get(act_url(world, "close_form"), **HTMX).status_code == 404
    assert snapshot() == before


@pytest.mark.parametrize("size", [10, 40])
def test_table_queries_do_not_grow_with_characters(world: World, size, django_assert_max_num_queries):
    for n in range(size):
        character = Character.objects.create(campaign=world.campaign_a, name=f"Extra {n}", constitution=10)
        actions.apply_damage(world.campaign_a, [character], Gas(turns=2), by=world.gm_a)
    fall_ill(world, world.char_a1, plague())
    client = client_for(world.gm_a)
    url = reverse("campaign", kwargs={"campaign_id": world.campaign_a.pk})
    # 12, whatever the number of characters: the session, the user, the campaign; the characters, the calls, the
    # invitations, the wounds, the illnesses; the undo button's event; the names, the log's page and its entries;
    # the visit marked as seen (play.screens.visits: a first visit has no panel).
    with django_assert_max_num_queries(13):
        assert client.get(url).status_code == 200


def player_sheet(world: World) -> str:
    actions.apply_damage(world.campaign_a, [world.char_a1, world.char_a2], Attack(amount=71), by=world.gm_a)
    fall_ill(world, world.char_a1, plague())
    url = reverse("character", kwargs={"campaign_id": world.campaign_a.pk, "character_id": world.char_a1.pk})
    return client_for(world.player_a).get(url).content.decode()


def test_player_sheet_shows_their_state(world: World):
    html = player_sheet(world)
    assert "9</strong> / 80" in html and "−4 a tiradas físicas" in html and "Peste" in html
    assert "Sana del todo en" in html and "Aldara pierde 71 PG" in html


def test_player_sheet_shows_no_other_character_and_no_gm_controls(world: World):
    html = player_sheet(world)
    assert "Borin" not in html
    assert "/act/" not in html and "Deshacer" not in html
