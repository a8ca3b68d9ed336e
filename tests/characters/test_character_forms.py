import pytest
from django.urls import reverse

from campaigns.models import Campaign
from characters.models import Character
from tests.helpers import World, client_for

VALID = {"name": "Eira", "constitution": "9", "jump": "3", "heal_wounds": "1", "weight_kg": "60", "notes": ""}


def create_url(world: World) -> str:
    return reverse("character_create", kwargs={"campaign_id": world.campaign_a.pk})


def test_gm_creates_a_character(world: World):
    response = client_for(world.gm_a).post(create_url(world), {**VALID, "player": world.player_a.pk})
    assert response.status_code == 302
    eira = Character.objects.get(name="Eira")
    assert (eira.campaign, eira.player, eira.constitution, eira.max_pg) == (world.campaign_a, world.player_a, 9, 90)


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("constitution", "0", "mayor o igual a 1"),
        ("constitution", "31", "menor o igual a 30"),
        ("constitution", "ocho", "número entero"),
        ("jump", "-1", "mayor o igual a 0"),
        ("heal_wounds", "31", "menor o igual a 30"),
        ("weight_kg", "0", "mayor o igual a 1"),
        ("weight_kg", "501", "menor o igual a 500"),
        ("weight_kg", "1e9", "número entero"),
        ("name", "x" * 10_000, "menos de 100 caracteres"),
        ("name", "", "obligatorio"),
    ],
)
def test_bad_input_is_refused_with_a_message_and_changes_nothing(world: World, field, value, message):
    before = Character.objects.count()
    response = client_for(world.gm_a).post(create_url(world), {**VALID, field: value})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert Character.objects.count() == before


def test_a_player_from_another_campaign_cannot_be_assigned(world: World):
    response = client_for(world.gm_a).post(create_url(world), {**VALID, "player": world.gm_b.pk})
    assert response.status_code == 400
    assert "Escoja una opción válida. Esa opción no está entre las disponibles." in response.content.decode()
    assert not Character.objects.filter(name="Eira").exists()


def test_edit_with_bad_input_keeps_the_old_values(world: World):
    response = client_for(world.gm_a).post(character_url(world, "character_edit"), {**VALID, "constitution": "31"})
    assert response.status_code == 400
    world.char_a1.refresh_from_db()
    assert world.char_a1.constitution == 8 and world.char_a1.name == "Aldara"


def character_url(world: World, name: str) -> str:
    return reverse(name, kwargs={"campaign_id": world.campaign_a.pk, "character_id": world.char_a1.pk})


def test_gm_edits_a_character(world: World):
    response = client_for(world.gm_a).post(character_url(world, "character_edit"), {**VALID, "name": "Aldara II"})
    assert response.status_code == 302
    world.char_a1.refresh_from_db()
    assert (world.char_a1.name, world.char_a1.constitution, world.char_a1.max_pg) == ("Aldara II", 9, 90)


def test_gm_deletes_a_character(world: World):
    assert client_for(world.gm_a).post(character_url(world, "character_delete")).status_code == 302
    assert not Character.objects.filter(pk=world.char_a1.pk).exists()
    assert Character.objects.filter(pk=world.char_a2.pk).exists()


def test_posting_to_another_gms_campaign_is_404(world: World):
    url = reverse("character_create", kwargs={"campaign_id": world.campaign_b.pk})
    assert client_for(world.gm_a).post(url, VALID).status_code == 404
    assert not Character.objects.filter(name="Eira").exists()


def test_campaign_name_too_long_is_refused(world: World):
    response = client_for(world.gm_a).post(reverse("campaign_create"), {"name": "x" * 10_000})
    assert response.status_code == 400
    assert Campaign.objects.count() == 2


def test_gm_creates_a_campaign(world: World):
    response = client_for(world.outsider).post(reverse("campaign_create"), {"name": "Nueva"})
    campaign = Campaign.objects.get(name="Nueva")
    assert response.status_code == 302 and campaign.gm == world.outsider
