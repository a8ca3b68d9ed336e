"""Issue 25, quick NPCs through their pages: "Añadir varios" and "Retirar varios" on the GM's table, each one action;
refusals re-render the form with the reason beside the field (a 400) and change nothing."""

import pytest
from django.urls import reverse

from characters.models import Character, NpcTemplate
from rules import queries
from tests.helpers import World, client_for, gm_table, unchanged

SEVERAL = {"name": "Guardia", "count": "4", "constitution": "6", "jump": "1", "heal_wounds": "0", "weight_kg": "80",
           "party_view": "", "notes": ""}  # fmt: skip


def add_url(world: World) -> str:
    return reverse("characters_add_several", kwargs={"campaign_id": world.campaign_a.pk})


def remove_url(world: World) -> str:
    return reverse("characters_remove_several", kwargs={"campaign_id": world.campaign_a.pk})


def test_the_table_offers_both(world: World):
    page = gm_table(world)
    assert f'href="{add_url(world)}">Añadir varios<' in page
    assert f'href="{remove_url(world)}">Retirar varios<' in page


def test_adding_several_from_the_page(world: World):
    response = client_for(world.gm_a).post(add_url(world), SEVERAL, follow=True)
    assert response.redirect_chain == [(reverse("campaign", args=[world.campaign_a.pk]), 302)]
    names = sorted(
        Character.objects.filter(campaign=world.campaign_a, name__startswith="Guardia").values_list("name", flat=True)
    )
    assert names == ["Guardia 1", "Guardia 2", "Guardia 3", "Guardia 4"]
    assert "Añadidos: Guardia 1, Guardia 2, Guardia 3, Guardia 4." in response.content.decode()
    assert "Añadir varios: Guardia 1…4" in response.content.decode()  # the log on the table
    # Again: the numbers go on.
    client_for(world.gm_a).post(add_url(world), {**SEVERAL, "count": "2"})
    assert Character.objects.filter(campaign=world.campaign_a, name="Guardia 6").exists()


def test_the_page_in_english(world: World):
    client = client_for(world.gm_a)
    page = client.get(add_url(world), headers={"accept-language": "en"}).content.decode()
    assert "Add several characters" in page and "How many" in page
    response = client.post(add_url(world), {**SEVERAL, "count": "0"}, headers={"accept-language": "en"})
    assert response.status_code == 400
    page = client.get(remove_url(world), headers={"accept-language": "en"}).content.decode()
    assert "Remove several characters" in page


def test_beyond_the_cap_nothing_is_added(world: World, settings):
    present = Character.objects.filter(campaign=world.campaign_a).count()
    settings.CHARACTERS_PER_CAMPAIGN = present + 2
    before = unchanged(world)
    response = client_for(world.gm_a).post(add_url(world), {**SEVERAL, "count": "3"})
    assert response.status_code == 400
    assert response.context["form"].errors["count"] == [
        f"La campaña tiene {present} personajes y el máximo de este sitio es {present + 2}: caben 2 más, no 3. "
        "No se ha añadido ninguno."
    ]
    assert unchanged(world) == before


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"count": "0"}, "count"),
        ({"count": "10000"}, "count"),
        ({"count": "x"}, "count"),
        ({"name": "a\x00b"}, "name"),
        ({"name": "G" * 100_000}, "name"),
        ({"constitution": "99"}, "constitution"),
        ({"weight_kg": "٣"}, "weight_kg"),
    ],
)
def test_bad_input_is_refused_beside_its_field(world: World, change, field):
    before = unchanged(world)
    response = client_for(world.gm_a).post(add_url(world), {**SEVERAL, **change})
    assert response.status_code == 400
    assert response.context["form"].errors[field]
    assert unchanged(world) == before


def test_removing_several_from_the_page_and_one_undo(world: World):
    chosen = [str(world.npc_a.pk), str(world.char_a2.pk)]
    response = client_for(world.gm_a).post(remove_url(world), {"characters": chosen}, follow=True)
    assert response.redirect_chain[-1][1] == 302
    assert "Han salido de la campaña: Borin, Tomás." in response.content.decode()
    assert set(Character.objects.filter(campaign=world.campaign_a).values_list("name", flat=True)) == {"Aldara"}
    event = queries.latest_undoable(world.campaign_a)
    response = client_for(world.gm_a).post(
        reverse("undo", kwargs={"campaign_id": world.campaign_a.pk}), {"event": event.pk}
    )
    assert response.status_code in (200, 302)
    assert Character.objects.filter(campaign=world.campaign_a).count() == 3


@pytest.mark.parametrize("chosen", [[], ["{b}"], ["{a1}", "{b}"], ["١"], ["x"], ["9" * 40]])
def test_bad_choices_change_nothing(world: World, chosen):
    data = {"characters": [c.format(a1=world.char_a1.pk, b=world.char_b.pk) for c in chosen]}
    before = unchanged(world)
    response = client_for(world.gm_a).post(remove_url(world), data)
    assert response.status_code == 400 and response.context["form"].errors["characters"]
    assert unchanged(world) == before


@pytest.mark.parametrize("persona", ["player_a", "player_a2", "gm_b", "outsider"])
def test_nobody_else_may(world: World, persona: str):
    before = unchanged(world)
    client = client_for(getattr(world, persona))
    assert client.post(add_url(world), SEVERAL).status_code == 404
    assert client.post(remove_url(world), {"characters": [str(world.char_a1.pk)]}).status_code == 404
    assert unchanged(world) == before


# --- templates -------------------------------------------------------------------------------------------------------


def test_save_as_template_then_fill_the_form_from_it_and_delete_it(world: World):
    client = client_for(world.gm_a)
    wolf = {**SEVERAL, "name": "Lobo", "count": "3", "constitution": "3", "weight_kg": "40", "save_template": "1"}
    response = client.post(add_url(world), wolf, follow=True)
    template = NpcTemplate.objects.get(campaign=world.campaign_a, name="Lobo")
    assert response.redirect_chain == [(f"{add_url(world)}?template={template.pk}", 302)]
    page = response.content.decode()
    assert "Plantilla «Lobo» guardada." in page
    assert not Character.objects.filter(name__startswith="Lobo").exists()  # kept, nobody added
    form = response.context["form"]
    assert (form["name"].value(), form["count"].value(), form["weight_kg"].value()) == ("Lobo", 3, 40)
    assert f'<option value="{template.pk}" selected>Lobo</option>' in page

    # A template of another campaign, or none, is not found.
    theirs = NpcTemplate.objects.create(campaign=world.campaign_b, name="Orco", count=2, constitution=8)
    for bad in (str(theirs.pk), "x", "٣", ""):
        assert client.get(add_url(world), {"template": bad}).status_code == 404

    delete = reverse("template_delete", kwargs={"campaign_id": world.campaign_a.pk, "template_id": template.pk})
    response = client.post(delete, follow=True)
    assert "Plantilla «Lobo» borrada." in response.content.decode()
    assert not NpcTemplate.objects.filter(pk=template.pk).exists()
    # Gone: a second click (a second tab's) is told on the page, as any stale second removal is, not a 404 page.
    again = client.post(delete, follow=True)
    assert again.status_code == 200 and again.redirect_chain == [(add_url(world), 302)]
    assert "Esa plantilla ya no existe." in again.content.decode()
    # Another campaign's template is not this campaign's: the same words as one gone, and it stays.
    other = reverse("template_delete", kwargs={"campaign_id": world.campaign_a.pk, "template_id": theirs.pk})
    assert "Esa plantilla ya no existe." in client.post(other, follow=True).content.decode()
    assert NpcTemplate.objects.filter(pk=theirs.pk).exists()


@pytest.mark.parametrize("persona", ["player_a", "player_a2", "gm_b", "outsider"])
def test_nobody_else_may_touch_templates(world: World, persona: str):
    template = NpcTemplate.objects.create(campaign=world.campaign_a, name="Lobo", count=2, constitution=3)
    before = unchanged(world), list(NpcTemplate.objects.values())
    client = client_for(getattr(world, persona))
    assert client.get(add_url(world), {"template": template.pk}).status_code == 404
    assert client.post(add_url(world), {**SEVERAL, "save_template": "1"}).status_code == 404
    delete = reverse("template_delete", kwargs={"campaign_id": world.campaign_a.pk, "template_id": template.pk})
    assert client.post(delete).status_code == 404
    assert (unchanged(world), list(NpcTemplate.objects.values())) == before


def test_a_template_named_with_an_invisible_character_is_the_template_of_that_name(world: World):
    """Issue 48: "Lobo" and "Lo<zero-width space>bo" look alike: they are one template, and saving it leads to it."""
    client = client_for(world.gm_a)
    client.post(add_url(world), {**SEVERAL, "name": "Lobo", "count": "3", "save_template": "1"})
    response = client.post(add_url(world), {**SEVERAL, "name": "Lo\u200bbo", "count": "5", "save_template": "1"})
    template = NpcTemplate.objects.get(campaign=world.campaign_a)
    assert (template.name, template.count) == ("Lobo", 5)
    assert response.status_code == 302 and response["Location"] == f"{add_url(world)}?template={template.pk}"
