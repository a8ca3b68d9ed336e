import pytest
from django.urls import reverse

from campaigns.models import Campaign, Event
from characters.models import Character
from rules import actions
from rules.damage import Attack
from rules.models import Wound
from tests.helpers import World, client_for, run_at_once

VALID = {
    "name": "Eira",
    "constitution": "9",
    "jump": "3",
    "heal_wounds": "1",
    "weight_kg": "60",
    "notes": "",
    "rests_between_sessions": "on",
}


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
        ("name", "x" * 10_000, "como mucho 100 caracteres"),
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
    assert "Elige una opción válida: esa no está entre las disponibles." in response.content.decode()
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


def test_the_delete_page_says_the_history_stays_and_undo_brings_it_back(world: World):
    html = client_for(world.gm_a).get(character_url(world, "character_delete")).content.decode()
    assert "Su historial se conserva" in html and "«Deshacer» en el registro lo devuelve" in html
    assert "No se puede deshacer" not in html


def test_removing_keeps_the_row_its_wounds_and_its_log(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=12), by=world.gm_a)
    response = client_for(world.gm_a).post(character_url(world, "character_delete"), follow=True)
    assert "Deshacer" in response.content.decode()
    aldara = Character.everyone.get(pk=world.char_a1.pk)
    assert aldara.removed and aldara.pg == 68 and Wound.objects.filter(character=aldara).count() == 1
    assert list(Event.objects.order_by("id").values_list("action", flat=True)) == ["damage", "character_removed"]
    # Gone from every page: the table, the player's page, the sheet.
    assert client_for(world.player_a).get(character_url(world, "character")).status_code == 404
    assert client_for(world.gm_a).get(character_url(world, "character_edit")).status_code == 404


def test_the_edit_form_never_writes_over_later_damage(world: World):
    """The form was opened, damage came, then the form was saved: PG keeps the damage."""
    client = client_for(world.gm_a)
    assert client.get(character_url(world, "character_edit")).status_code == 200
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=30), by=world.gm_a)
    data = {**VALID, "name": "Aldara", "constitution": "8", "player": world.player_a.pk}
    assert client.post(character_url(world, "character_edit"), {**data, "jump": "5"}).status_code == 302
    aldara = Character.objects.get(pk=world.char_a1.pk)
    assert (aldara.jump, aldara.pg) == (5, 50)
    event = Event.objects.latest("id")
    assert (event.action, set(event.details["changes"])) == ("character_edited", {"jump", "heal_wounds", "weight_kg"})


def test_an_edit_that_changes_nothing_says_so_and_logs_nothing(world: World):
    data = {
        "name": "Aldara",
        "constitution": "8",
        "jump": "0",
        "heal_wounds": "0",
        "weight_kg": "70",
        "notes": "",
        "rests_between_sessions": "on",
    }
    response = client_for(world.gm_a).post(
        character_url(world, "character_edit"), {**data, "player": world.player_a.pk}, follow=True
    )
    assert "Nada que guardar" in response.content.decode()
    assert not Event.objects.exists()


def test_creating_and_editing_are_logged(world: World):
    client = client_for(world.gm_a)
    client.post(create_url(world), VALID)
    eira = Character.objects.get(name="Eira")
    url = reverse("character_edit", kwargs={"campaign_id": world.campaign_a.pk, "character_id": eira.pk})
    client.post(url, {**VALID, "constitution": "10"})
    assert list(Event.objects.order_by("id").values_list("action", flat=True)) == [
        "character_added",
        "character_edited",
    ]
    assert Character.objects.get(pk=eira.pk).pg == 100


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


@pytest.mark.django_db(transaction=True)
def test_the_same_removal_four_times_at_once_removes_once_and_answers_each(world: World):
    url = character_url(world, "character_delete")
    statuses: list[int] = []
    clients = [client_for(world.gm_a) for _ in range(4)]
    errors = run_at_once([lambda client=client: statuses.append(client.post(url).status_code) for client in clients])
    assert not errors and statuses == [302] * 4
    assert Event.objects.filter(campaign=world.campaign_a, action="character_removed").count() == 1
    assert Character.everyone.get(pk=world.char_a1.pk).removed


@pytest.mark.django_db(transaction=True)
def test_a_removal_raced_against_the_undo_of_the_characters_creation_answers_both(world: World):
    added = actions.add_character(world.campaign_a, actions.Sheet("Eira", 9), by=world.gm_a)
    created, creation = added.characters[0], added.event
    url = reverse("character_delete", kwargs={"campaign_id": world.campaign_a.pk, "character_id": created.pk})
    undo = reverse("undo", kwargs={"campaign_id": world.campaign_a.pk})
    statuses: list[int] = []
    gm, other = client_for(world.gm_a), client_for(world.gm_a)
    errors = run_at_once(
        [
            lambda: statuses.append(gm.post(url).status_code),
            lambda: statuses.append(other.post(undo, {"event": creation.pk}).status_code),
        ]
    )
    assert not errors and all(status < 500 for status in statuses), statuses
    assert Character.everyone.get(pk=created.pk).removed  # removed by one or the other, or both in turn
