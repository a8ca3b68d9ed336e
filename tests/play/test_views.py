"""The GM's table over HTTP: every action succeeds, refuses bad input with a message and no change, and answers 404
to anyone but the campaign's GM."""

import pytest
from django.urls import reverse

from campaigns.models import Event
from characters.models import Character
from rules import actions
from rules.damage import Attack, Gas
from rules.models import Disease, Illness, Wound
from tests.conftest import World, client_for
from tests.rules.test_actions import snapshot

HTMX = {"HTTP_HX_REQUEST": "true"}


def act_url(world: World, action: str) -> str:
    return reverse(action, kwargs={"campaign_id": world.campaign_a.pk})


def post(world: World, action: str, data: dict, user=None, htmx: bool = True):
    return client_for(user or world.gm_a).post(act_url(world, action), data, **(HTMX if htmx else {}))


def pg(character: Character) -> int:
    return Character.objects.get(pk=character.pk).pg


@pytest.fixture
def healer(world: World) -> Character:
    Character.objects.filter(pk=world.npc_a.pk).update(heal_wounds=6)
    return world.npc_a


def ill(world: World) -> Illness:
    plague = Disease.objects.get(name="Peste")
    actions.expose(world.campaign_a, [world.char_a1], plague, dice_by_character={world.char_a1.pk: 1}, by=world.gm_a)
    return Illness.objects.get(character=world.char_a1)


def test_table_shows_cards_clock_and_log(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=75), by=world.gm_a)
    page = client_for(world.gm_a).get(reverse("campaign", kwargs={"campaign_id": world.campaign_a.pk}))
    html = page.content.decode()
    assert "Día 1, 00:00" in html and "Aldara" in html and "Borin" in html
    assert "5</strong> / 80" in html and "−4 a tiradas físicas" in html and "−2 a las demás tiradas" in html
    assert "Daño: Ataque físico directo" in html and "Aldara pierde 75 PG" in html


@pytest.mark.parametrize(
    "data, expected_pg",
    [
        ({"kind": "attack", "amount": "12"}, 68),
        ({"kind": "collision", "speed_kmh": "50", "weight_kg": ""}, 80 - 5 - 7),
        ({"kind": "fall", "height_m": "6", "weight_kg": "90", "difficulty": "12", "die_{a1}": "1"}, 80 - 6 - 9),
        ({"kind": "drowning", "turns": "4"}, 72),
        ({"kind": "gas", "turns": "4"}, 76),
    ],
)
def test_damage_of_each_kind(world: World, data, expected_pg):
    data = {k.replace("{a1}", str(world.char_a1.pk)): v for k, v in data.items()}
    response = post(world, "damage", {**data, "characters": [world.char_a1.pk], "character": world.char_a1.pk})
    assert response.status_code == 200
    assert pg(world.char_a1) == expected_pg
    html = response.content.decode()
    assert 'id="table"' in html and f"{expected_pg}</strong> / 80" in html
    assert f"Aldara: {expected_pg}/80 PG" in html  # the aria-live announcement


def test_damage_by_dice_to_the_party(world: World):
    party = [world.char_a1.pk, world.char_a2.pk, world.npc_a.pk]
    response = post(world, "damage", {"kind": "attack", "amount": "2d6+1", "characters": party})
    assert response.status_code == 200
    lost = 80 - pg(world.char_a1)
    assert 3 <= lost <= 13 and pg(world.char_a2) == 120 - lost and pg(world.npc_a) == 50 - lost
    assert "Tirada de daño: 2d6" in response.content.decode()


@pytest.mark.parametrize(
    "data, message",
    [
        ({"kind": "attack", "amount": "1000000d1000000"}, "como mucho 1000 caras"),
        ({"kind": "attack", "amount": "siete"}, "2d6"),
        ({"kind": "attack", "amount": "1001"}, "entre 0 y 1000"),
        ({"kind": "attack", "amount": "x" * 10_000}, "menos de 50 caracteres"),
        ({"kind": "collision", "speed_kmh": "rápido"}, "número entero"),
        ({"kind": "collision", "speed_kmh": "99999"}, "menor o igual a 2000"),
        ({"kind": "fall", "height_m": "3", "difficulty": "12", "die_{a1}": "21"}, "menor o igual a 20"),
        ({"kind": "gas", "turns": "-1"}, "mayor o igual a 0"),
        ({"kind": "magia", "turns": "1"}, "Escoja una opción válida"),
        ({"kind": "attack", "amount": "5", "characters": "{b}"}, "Escoja una opción válida"),
        ({"kind": "attack", "amount": "5", "characters": ""}, "no es un valor válido"),
    ],
)
def test_bad_damage_input_shows_a_message_and_changes_nothing(world: World, data, message):
    data = {"characters": world.char_a1.pk, **data}
    data = {
        k.replace("{a1}", str(world.char_a1.pk)): str(v).replace("{b}", str(world.char_b.pk)) for k, v in data.items()
    }
    before = snapshot(world)
    response = post(world, "damage", {**data, "slot": str(world.char_a1.pk)})
    assert response.status_code == 422
    assert message in response.content.decode()
    assert response.headers["HX-Retarget"] == f"#form-{world.char_a1.pk}"
    assert snapshot(world) == before


def test_bad_input_without_htmx_renders_a_page(world: World):
    response = post(world, "damage", {"kind": "gas", "turns": "", "characters": world.char_a1.pk}, htmx=False)
    assert response.status_code == 400 and "obligatorio" in response.content.decode()
    assert "<html" in response.content.decode()


def test_success_without_htmx_redirects(world: World):
    response = post(world, "damage", {"kind": "gas", "turns": "2", "characters": world.char_a1.pk}, htmx=False)
    assert response.status_code == 302 and pg(world.char_a1) == 78


def test_forms_load_as_fragments_and_pages(world: World):
    client = client_for(world.gm_a)
    for action in ("damage", "expose", "advance"):
        assert client.get(act_url(world, action), **HTMX).status_code == 200
    for action in ("treat_wounds", "treat_illness", "medicate", "exertion"):
        url = f"{act_url(world, action)}?character={world.char_a1.pk}"
        fragment = client.get(url, **HTMX)
        assert fragment.status_code == 200 and "<html" not in fragment.content.decode()
        assert "<html" in client.get(url).content.decode()
        assert client.get(act_url(world, action)).status_code == 404  # needs a character
        assert client.get(f"{act_url(world, action)}?character={world.char_b.pk}").status_code == 404
        assert client.get(f"{act_url(world, action)}?character=x").status_code == 404
    changed = client.get(f"{act_url(world, 'damage')}?character={world.char_a1.pk}&kind=fall", **HTMX)
    assert 'name="height_m"' in changed.content.decode() and "obligatorio" not in changed.content.decode()
    assert client.get(f"/campaigns/{world.campaign_a.pk}/act/teleport/").status_code == 404


def test_advance_presets_and_custom_duration(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1, world.char_a2], Attack(amount=10), by=world.gm_a)
    # +1 day of rest, Borin not resting.
    response = post(world, "advance", {"preset": "86400", "resting": [world.char_a1.pk]})
    assert response.status_code == 200 and "Día 2, 00:00" in response.content.decode()
    assert (pg(world.char_a1), pg(world.char_a2)) == (71, 110)
    # +1 hour is not rest.
    post(world, "advance", {"preset": "3600", "resting": [world.char_a1.pk, world.char_a2.pk]})
    assert pg(world.char_a1) == 71
    response = post(world, "advance", {"duration": "2d", "resting": [world.char_a1.pk, world.char_a2.pk]})
    assert (pg(world.char_a1), pg(world.char_a2)) == (73, 112)
    world.campaign_a.refresh_from_db()
    assert world.campaign_a.clock == 3 * 86400 + 3600


@pytest.mark.parametrize(
    "data, message",
    [
        ({"duration": "mañana"}, "No se entiende"),
        ({"duration": "0"}, "mayor que cero"),
        ({}, "Elige un botón"),
        ({"preset": "999"}, "Escoja una opción válida"),
        ({"duration": "1h", "resting": "{b}"}, "Escoja una opción"),
    ],
)
def test_advance_bad_input(world: World, data, message):
    data = {k: str(v).replace("{b}", str(world.char_b.pk)) for k, v in data.items()}
    before = snapshot(world)
    response = post(world, "advance", {**data, "slot": "advance"})
    assert response.status_code == 422 and message in response.content.decode()
    assert snapshot(world) == before


def test_expose_with_typed_dice(world: World):
    plague = Disease.objects.get(name="Peste")
    data = {
        "disease": plague.pk,
        "characters": [world.char_a1.pk, world.char_a2.pk],
        f"die_{world.char_a1.pk}": "1",
        f"die_{world.char_a2.pk}": "12",
    }
    response = post(world, "expose", data)
    assert response.status_code == 200
    assert Illness.objects.filter(character=world.char_a1).exists()
    assert not Illness.objects.filter(character=world.char_a2).exists()  # 12 + 12 resists
    assert "Aldara enferma" in response.content.decode()


def test_expose_refuses_a_die_out_of_range_and_another_campaigns_disease(world: World):
    foreign = Disease.objects.create(name="Ajena", category="common", penalty=-1, campaign=world.campaign_b)
    before = snapshot(world)
    bad_die = post(
        world,
        "expose",
        {
            "disease": Disease.objects.get(name="Gripe").pk,
            "characters": world.char_a1.pk,
            f"die_{world.char_a1.pk}": "13",
        },
    )
    assert bad_die.status_code == 422 and "menor o igual a 12" in bad_die.content.decode()
    forged = post(world, "expose", {"disease": foreign.pk, "characters": world.char_a1.pk})
    assert forged.status_code == 422 and "Escoja una opción válida" in forged.content.decode()
    assert snapshot(world) == before


def test_treat_wounds_and_its_refusals(world: World, healer):
    data = {"character": world.char_a1.pk, "healer": healer.pk}
    nothing = post(world, "treat_wounds", data)
    assert nothing.status_code == 422 and "no tiene heridas sin tratar" in nothing.content.decode()
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=4), by=world.gm_a)
    unskilled = post(world, "treat_wounds", {**data, "healer": world.char_a2.pk})
    assert unskilled.status_code == 422
    assert post(world, "treat_wounds", data).status_code == 200
    assert Wound.objects.get(character=world.char_a1).treated


def test_treat_illness_medicate_and_exertion(world: World, healer):
    illness = ill(world)
    data = {"character": world.char_a1.pk, "illness": illness.pk}
    self_treat = post(world, "treat_illness", {**data, "healer": world.char_a1.pk})
    assert self_treat.status_code == 422  # not offered: the patient cannot treat their own illness
    assert post(world, "treat_illness", {**data, "healer": healer.pk}).status_code == 200
    response = post(world, "medicate", data)
    assert response.status_code == 200 and "Curada." in response.content.decode()
    illness.refresh_from_db()
    assert illness.cured_at == 0
    other = post(world, "medicate", {**data, "character": world.char_a2.pk})
    assert other.status_code == 422  # Borin has no such illness
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=77), by=world.gm_a)
    response = post(world, "exertion", {"character": world.char_a1.pk, "die": "1"})
    assert response.status_code == 200 and pg(world.char_a1) == 2
    assert post(world, "exertion", {"character": world.char_a1.pk, "die": "13"}).status_code == 422


def test_undo_button(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=9), by=world.gm_a)
    url = reverse("undo", kwargs={"campaign_id": world.campaign_a.pk})
    response = client_for(world.gm_a).post(url, **HTMX)
    assert response.status_code == 200 and pg(world.char_a1) == 80
    assert 'class="entry undone"' in response.content.decode()
    again = client_for(world.gm_a).post(url, **HTMX)
    assert again.status_code == 200 and "No hay nada que deshacer" in again.content.decode()


@pytest.mark.parametrize("persona", ["player_a", "player_a2", "gm_b", "outsider"])
def test_every_action_is_404_for_others_and_changes_nothing(world: World, persona: str):
    user = getattr(world, persona)
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=3), by=world.gm_a)
    before = snapshot(world)
    posts = {
        "damage": {"kind": "attack", "amount": "5", "characters": world.char_a1.pk},
        "advance": {"preset": "86400"},
        "expose": {"disease": Disease.objects.get(name="Gripe").pk, "characters": world.char_a1.pk},
        "treat_wounds": {"character": world.char_a1.pk, "healer": world.npc_a.pk},
        "exertion": {"character": world.char_a1.pk},
    }
    for action, data in posts.items():
        assert post(world, action, data, user=user).status_code == 404, action
        assert client_for(user).get(act_url(world, action), **HTMX).status_code == 404
    assert client_for(user).post(reverse("undo", kwargs={"campaign_id": world.campaign_a.pk})).status_code == 404
    assert snapshot(world) == before
    assert Event.objects.count() == 1


@pytest.mark.parametrize("size", [10, 40])
def test_table_queries_do_not_grow_with_characters(world: World, size, django_assert_max_num_queries):
    for n in range(size):
        character = Character.objects.create(campaign=world.campaign_a, name=f"Extra {n}", constitution=10)
        actions.apply_damage(world.campaign_a, [character], Gas(turns=2), by=world.gm_a)
    ill(world)
    client = client_for(world.gm_a)
    url = reverse("campaign", kwargs={"campaign_id": world.campaign_a.pk})
    with django_assert_max_num_queries(12):
        assert client.get(url).status_code == 200


def test_player_sheet_shows_their_state_and_no_gm_controls(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1, world.char_a2], Attack(amount=71), by=world.gm_a)
    ill(world)
    url = reverse("character", kwargs={"campaign_id": world.campaign_a.pk, "character_id": world.char_a1.pk})
    html = client_for(world.player_a).get(url).content.decode()
    assert "9</strong> / 80" in html and "−4 a tiradas físicas" in html and "Peste" in html
    assert "Sana del todo en" in html and "Aldara pierde 71 PG" in html
    assert "Borin" not in html and "/act/" not in html and "Deshacer" not in html
