"""Issue 48, items 6, 7 and 13, in "Desde tu última visita" (play.screens.visits, play.log.stretch_words): what an
account did itself, from any page, is never news to it; a newcomer "entered with" the PG it joined with, not today's;
entering comes before leaving; a serious illness's weekly losses are PG lost to that disease, not "60 heridas de
Enfermedad"; a resistance roll names its disease."""

from __future__ import annotations

import re

from django.test import Client
from django.urls import reverse

from campaigns.models import Visit
from characters.models import Character
from play.log.stretch_words import character_lines
from rules import actions
from rules.damage import Attack
from rules.models import CalledCheck, CheckKind
from rules.stretches import stretch
from tests.helpers import World, client_for, plague

TITLE = "Desde tu última visita"
WEEK = 7 * 86400


def panel(client: Client, world: World) -> str:
    response = client.get(reverse("campaign", args=[world.campaign_a.pk]))
    assert response.status_code == 200
    found = re.search(r'<section id="since-visit".*?</section>', response.content.decode(), re.DOTALL)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", found.group(0))) if found else ""


def test_the_gms_own_actions_from_any_page_are_no_news_to_them(world: World):
    gm = client_for(world.gm_a)
    panel(gm, world)  # first visit
    # Away from the table (the character's own page, "Añadir varios"), the GM adds, hits and advances.
    explorer = actions.add_character(world.campaign_a, actions.Sheet("Explorador", 5), by=world.gm_a).characters[0]
    actions.add_characters(world.campaign_a, actions.Sheet("Alto", 5), 2, by=world.gm_a)
    actions.apply_damage(world.campaign_a, [explorer, world.char_a1], Attack(amount=4), by=world.gm_a)
    actions.advance_clock(world.campaign_a, 3600, by=world.gm_a)
    assert panel(gm, world) == ""
    assert Visit.objects.get(user=world.gm_a, campaign=world.campaign_a).since is None  # nothing waits either

    # The co-GM's doings are news to the owner; the owner's own, in the same stretch, are not.
    actions.apply_damage(world.campaign_a, [world.char_a2], Attack(amount=2), by=world.co_gm)
    actions.apply_damage(world.campaign_a, [explorer], Attack(amount=1), by=world.gm_a)
    told = panel(gm, world)
    assert TITLE in told and "Borin" in told and "Explorador" not in told and "Aldara" not in told
    # …and the owner's doings are news to the co-GM.
    co_gm = client_for(world.co_gm)
    assert "Explorador" not in panel(co_gm, world)  # first visit
    actions.apply_damage(world.campaign_a, [explorer], Attack(amount=1), by=world.gm_a)
    assert "Explorador" in panel(co_gm, world)


def test_a_players_own_roll_is_no_news_to_them(world: World):
    ana = client_for(world.player_a)
    panel(ana, world)
    call = actions.Call(CheckKind.FALL, height_m=4)
    actions.call_check(world.campaign_a, [world.char_a1], call, by=world.gm_a)
    assert "Tirada de caída: pendiente." in panel(ana, world)  # the GM's call is news to her
    ana.post(reverse("visit_dismiss", args=[world.campaign_a.pk]))
    called = CalledCheck.objects.get(character=world.char_a1)
    actions.answer_check(world.campaign_a, called, by=world.player_a, die=15)  # she rolls it on another device
    assert panel(ana, world) == ""


def test_a_newcomer_entered_with_the_pg_it_joined_with_then_its_pg_now(world: World):
    gm = client_for(world.gm_a)
    panel(gm, world)
    weak = actions.add_character(world.campaign_a, actions.Sheet("Explorador", 2), by=world.co_gm).characters[0]
    joined = weak.pg
    actions.apply_damage(world.campaign_a, [weak], Attack(amount=5), by=world.co_gm)
    told = panel(gm, world)
    assert f"Entró en la campaña con {joined} PG." in told
    assert f"PG: {joined} → {joined - 5} de {joined}." in told
    assert f"con {joined - 5} PG" not in told

    actions.apply_damage(world.campaign_a, [weak], Attack(amount=joined), by=world.co_gm)
    lines = panel(gm, world)
    assert re.search(f"Entró en la campaña con {joined} PG. Murió.", lines)  # in the order it happened
    assert "con 0 PG" not in lines


def test_entering_comes_before_leaving(world: World):
    gm = client_for(world.gm_a)
    panel(gm, world)
    passing = actions.add_character(world.campaign_a, actions.Sheet("De paso", 5), by=world.co_gm).characters[0]
    actions.remove_character(world.campaign_a, passing, by=world.co_gm)
    row = stretch(world.campaign_a, None, None).of(passing.pk)
    assert row is not None
    lines = character_lines(row)
    assert lines.index(f"Entró en la campaña con {passing.pg} PG.") < lines.index("Salió de la campaña.")


def test_weekly_losses_are_pg_lost_to_the_disease_and_a_resistance_roll_names_it(world: World):
    ana = client_for(world.player_a)
    panel(ana, world)
    aldara = world.char_a1
    actions.expose(world.campaign_a, [aldara], plague(), by=world.gm_a, dice_by_character={aldara.pk: 1})
    actions.advance_clock(world.campaign_a, 3 * WEEK, by=world.gm_a)
    now = Character.objects.get(pk=aldara.pk)
    lost = now.max_pg - now.pg  # the weekly losses alone: no other wound
    assert lost > 0
    told = panel(ana, world)
    assert f"Perdió {lost} PG por Peste." in told
    assert "heridas de Enfermedad" not in told and "herida de Enfermedad" not in told
    assert "Tirada de resistencia contra Peste: sacó 1" in told
