"""Words (issue 24): times said as a person says them, a minus sign for every negative number, built-in diseases named
in the reader's language, and the messages that said the wrong thing (a passed check, the dead in a preview, an
imported campaign's name)."""

import datetime

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from campaigns.models import Campaign
from play.forms.campaigns import imported_name
from rules import actions, backup
from rules.damage import Attack, Fall
from rules.engine import DAY, HOUR, MINUTE
from rules.models import Disease
from tests.campaigns.documents import through_json, upload
from tests.helpers import World, client_for, gm_table, plague
from tests.play.test_log import latest_entry, sheet
from tests.play.test_preview import preview


def in_english(user) -> Client:
    client = Client(headers={"accept-language": "en"})
    client.force_login(user)
    return client


# --- times said to two units, the exact one at hand -------------------------------------------------------------------


def test_a_healing_time_is_said_to_two_units_and_the_exact_one_is_at_hand(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=3), by=world.gm_a)  # 3 days of rest
    odd = 2 * HOUR + MINUTE + 12
    actions.advance_clock(world.campaign_a, odd, by=world.gm_a)
    exact, spoken = "2 días 21 h 58 min 48 s", "2 días 21 h"
    assert 3 * DAY - odd == 2 * DAY + 21 * HOUR + 58 * MINUTE + 48
    card = f'sana en <span title="{exact}">{spoken}</span> de descanso'
    assert card in gm_table(world)
    page = sheet(world, world.char_a1, world.player_a)
    assert f'Sana del todo en <span title="{exact}">{spoken}</span> de descanso.' in page
    assert f"Exactamente: {exact}." in page
    assert latest_entry(world).title == "Pasa el tiempo: 2 h 1 min 12 s"  # the log keeps the exact time


def test_a_whole_healing_time_needs_no_tooltip(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=3), by=world.gm_a)
    assert "sana en 3 días de descanso" in gm_table(world)
    assert "Exactamente" not in sheet(world, world.char_a1, world.player_a)


# --- the log ---------------------------------------------------------------------------------------------------------


def test_a_passed_fall_check_says_no_damage(world: World):
    fall = Fall(height_m=3, difficulty=12, dice={world.char_a1.pk: 20})
    actions.apply_damage(world.campaign_a, [world.char_a1], fall, by=world.gm_a)
    lines = latest_entry(world).lines
    assert lines[-1] == "Aldara: sin daño" and not any("pierde 0" in line for line in lines)
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=0), by=world.gm_a)
    assert latest_entry(world).lines == ["Aldara: sin daño"]


def test_a_roll_below_zero_and_dice_are_written_with_a_minus_sign(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=78), by=world.gm_a)  # 2 PG: −6
    fall = Fall(height_m=0, weight_kg=1, difficulty=12, dice={world.char_a1.pk: 1})
    actions.apply_damage(world.campaign_a, [world.char_a1], fall, by=world.gm_a)
    roll = latest_entry(world).lines[1]
    assert roll.endswith("= −5 contra 12: fallo") and "-" not in roll
    actions.apply_damage(world.campaign_a, [world.char_a2], Attack(expression="1d4-3"), by=world.gm_a)
    dice = latest_entry(world).lines[0]
    assert dice.startswith("Tirada de daño: 1d4 (") and "−" in dice and "-" not in dice


# --- the time-skip preview -------------------------------------------------------------------------------------------


def test_the_preview_says_the_dead_are_dead(world: World):
    actions.apply_damage(world.campaign_a, [world.npc_a], Attack(amount=50), by=world.gm_a)
    html = preview(world, {"duration": "1d", "resting": [world.char_a1.pk, world.npc_a.pk]})
    tomas = html.split("Tomás</strong>", 1)[1].split("</li>", 1)[0]
    assert "muerto" in tomas and "descansa" not in tomas and "sin cambios" not in tomas


# --- built-in diseases in the reader's language ----------------------------------------------------------------------


def test_built_in_diseases_are_named_in_english_and_stored_in_spanish(world: World):
    actions.expose(world.campaign_a, [world.char_a1], plague(), dice_by_character={world.char_a1.pk: 1}, by=world.gm_a)
    url = reverse("character", args=[world.campaign_a.pk, world.char_a1.pk])
    page = in_english(world.player_a).get(url).content.decode()
    assert "Plague" in page and "Peste" not in page
    assert "Peste" in client_for(world.player_a).get(url).content.decode()
    diseases = in_english(world.gm_a).get(reverse("diseases", args=[world.campaign_a.pk])).content.decode()
    assert "Common cold" in diseases and "Tuberculosis" in diseases and "Resfrío" not in diseases
    assert Disease.objects.filter(campaign=None, name="Peste").exists()


def test_a_disease_named_as_a_built_in_one_reads_in_english_is_refused(world: World):
    """The built-in "Peste" reads "Plague" in English: a campaign's own "Plague" beside it would be two "Plague"."""
    for name in ("plague", "PESTE"):
        with pytest.raises(actions.ActionError) as refused:
            actions.add_disease(world.campaign_a, actions.DiseaseSheet(name, "common", -1), by=world.gm_a)
        assert refused.value.field == "name" and "«Peste»" in refused.value.message
    assert not world.campaign_a.diseases.exists()


# --- the diseases page -----------------------------------------------------------------------------------------------


def test_the_diseases_page_writes_penalties_with_a_minus_sign_and_labels_capitalised(world: World):
    page = client_for(world.gm_a).get(reverse("diseases", args=[world.campaign_a.pk])).content.decode()
    assert "<td>−2</td>" in page and "<td>-2</td>" not in page
    form = client_for(world.gm_a).get(reverse("disease_create", args=[world.campaign_a.pk])).content.decode()
    for label in ("Nombre", "Categoría", "Penalización a todas las tiradas"):
        assert f">{label}" in form
    assert ">nombre" not in form and ">categoría" not in form


# --- an imported campaign's name -------------------------------------------------------------------------------------


def test_an_imported_campaign_is_named_with_its_day_unless_renamed(world: World):
    document = through_json(backup.export_campaign(world.campaign_a))
    importer = client_for(world.gm_b)
    response = importer.post(reverse("campaign_import"), upload(document))
    assert response.status_code == 302
    today = timezone.localdate()
    restored = Campaign.objects.filter(gm=world.gm_b).latest("id")
    assert restored.name == imported_name("A", today)
    response = importer.post(reverse("campaign_import"), {**upload(document), "name": " Copia de A "})
    assert response.status_code == 302 and Campaign.objects.filter(gm=world.gm_b).latest("id").name == "Copia de A"
    response = importer.post(reverse("campaign_import"), {**upload(document), "name": "x" * 101})
    assert response.status_code == 400 and Campaign.objects.filter(gm=world.gm_b).count() == 3


def test_the_imported_name_says_the_day_and_fits():
    day = datetime.date(2026, 12, 1)
    assert imported_name("La Cripta de Hielo", day) == "«La Cripta de Hielo» (importada el 1 dic)"
    long = imported_name("x" * 100, day)
    assert len(long) == 100 and long.endswith("…» (importada el 1 dic)")
    with translation.override("en"):
        assert imported_name("La Cripta de Hielo", day) == "“La Cripta de Hielo” (imported Dec 1)"
