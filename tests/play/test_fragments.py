"""Fragments drawn once and kept (play.fragments): a card, who rests, a log entry. A kept fragment must never be
stale: after any change — through the actions, or behind their back as the Django admin does — a page served from
kept fragments is the page drawn anew, and every field of every row a card is drawn from is in what it is kept by."""

import copy
import re
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.db.models import Model
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django.utils.autoreload import file_changed

from campaigns.access import characters_seen_by, table_of
from campaigns.models import Invitation
from characters.models import Character
from play import fragments, log
from play.cards import Card, Showing, card_html, cards_for
from play.forms import AdvanceForm
from play.recent import Recent
from rules import actions
from rules.damage import Attack, Gas
from rules.models import Disease, Illness, Wound
from tests.helpers import World, client_for, make_user, plague

TOKEN = re.compile(r'(value="|"X-CSRFToken": ")[A-Za-z0-9]{64}"')


def table_url(world: World) -> str:
    return reverse("campaign", kwargs={"campaign_id": world.campaign_a.pk})


def page(client: Client, world: World, **headers: str) -> str:
    response = client.get(table_url(world), **headers)
    assert response.status_code == 200
    return response.content.decode()


def without_tokens(html: str) -> str:
    return TOKEN.sub(r"\1TOKEN", html)


def kept_equals_fresh(world: World, **headers: str) -> str:
    """The GM's table served with what is kept, and drawn anew with nothing kept: the same page."""
    client = client_for(world.gm_a)
    kept = page(client, world, **headers)
    fragments._drawn.clear()
    assert without_tokens(kept) == without_tokens(page(client, world, **headers))
    return kept


def damage(world: World) -> None:
    actions.apply_damage(world.campaign_a, [world.char_a1, world.npc_a], Attack(amount=7), by=world.gm_a)


def advance(world: World) -> None:
    actions.advance_clock(world.campaign_a, 3600 * 30, resting=[world.char_a1], by=world.gm_a)


def rename_the_disease(world: World) -> None:
    Disease.objects.filter(pk=plague().pk).update(name="Fiebre del puerto")


def rename_the_player(world: World) -> None:
    type(world.player_a).objects.filter(pk=world.player_a.pk).update(username="aldara_en_el_movil")


def rename_a_character(world: World) -> None:
    Character.objects.filter(pk=world.char_a2.pk).update(name="Borin el Rojo")


def give_the_npc_a_player(world: World) -> None:
    Character.objects.filter(pk=world.npc_a.pk).update(player=world.player_a2)


def revoke_the_invitation(world: World) -> None:
    Invitation.objects.filter(pk=world.invite_a.pk).update(revoked_at=timezone.now())


def invite_again(world: World) -> None:
    revoke_the_invitation(world)
    Invitation.objects.create(campaign=world.campaign_a, character=world.npc_a)


def medicate_behind_the_actions_back(world: World) -> None:
    Illness.objects.filter(character=world.char_a1).update(medicated=True)


# Each changes what the table shows; those behind the actions' back bump no campaign version and send no notification.
CHANGES = [
    damage,
    advance,
    rename_the_disease,
    rename_the_player,
    rename_a_character,
    give_the_npc_a_player,
    revoke_the_invitation,
    invite_again,
    medicate_behind_the_actions_back,
]


@pytest.mark.parametrize("change", CHANGES, ids=lambda change: change.__name__)
def test_after_any_change_the_kept_table_is_the_table_drawn_anew(world: World, change):
    actions.expose(world.campaign_a, [world.char_a1], plague(), dice_by_character={world.char_a1.pk: 1}, by=world.gm_a)
    actions.apply_damage(world.campaign_a, [world.char_a1], Gas(turns=2), by=world.gm_a)
    before = kept_equals_fresh(world)
    change(world)
    after = kept_equals_fresh(world)
    assert without_tokens(after) != without_tokens(before)


def test_a_change_behind_the_actions_back_shows_at_once(world: World):
    actions.expose(world.campaign_a, [world.char_a1], plague(), dice_by_character={world.char_a1.pk: 1}, by=world.gm_a)
    page(client_for(world.gm_a), world)
    for change in (rename_the_disease, rename_the_player, rename_a_character):
        change(world)
    html = page(client_for(world.gm_a), world)
    assert "Fiebre del puerto" in html and "aldara_en_el_movil" in html and "Borin el Rojo" in html
    assert ">player_a<" not in html and ">Borin<" not in html


def test_each_language_has_its_own_cards(world: World):
    spanish = kept_equals_fresh(world)
    english = kept_equals_fresh(world, HTTP_ACCEPT_LANGUAGE="en")
    assert "Daño rápido" in spanish and "Quick damage" not in spanish
    assert "Quick damage" in english and "Daño rápido" not in english
    assert without_tokens(page(client_for(world.gm_a), world)) == without_tokens(spanish)


def test_each_page_carries_its_own_csrf_token_and_it_works(world: World):
    first, second = (Client(enforce_csrf_checks=True) for _ in range(2))
    for client in (first, second):
        client.force_login(world.gm_a)
    tokens = []
    for client in (first, second):
        html = page(client, world)
        [header] = re.findall(r'"X-CSRFToken": "([A-Za-z0-9]{64})"', html)
        in_forms = set(re.findall(r'name="csrfmiddlewaretoken" value="([A-Za-z0-9]{64})"', html))
        assert in_forms == {header} and "\x00" not in html
        tokens.append(header)
    assert tokens[0] != tokens[1]
    # the quick damage form of a card, sent by a browser without htmx, with the token its page gave it
    url = reverse("damage", kwargs={"campaign_id": world.campaign_a.pk})
    pk = str(world.char_a1.pk)
    data = {"csrfmiddlewaretoken": tokens[1], "kind": "attack", "amount": "3", "characters": pk, "character": pk}
    assert second.post(url, data).status_code == 302
    assert Character.objects.get(pk=world.char_a1.pk).pg == world.char_a1.max_pg - 3


def test_a_live_update_draws_cards_without_a_token_and_a_page_with_it(world: World):
    from campaigns import access
    from play.live import Shown, render_fragments

    page(client_for(world.gm_a), world)  # the page's cards, kept with the token's mark
    gm = access.audience_of(world.gm_a, world.campaign_a)
    everyone = Shown(frozenset({world.char_a1.pk, world.char_a2.pk, world.npc_a.pk}))
    text, _shown = render_fragments(gm, "http://mesa", "es", (world.char_a1.pk,), everyone)
    assert f"event: card-{world.char_a1.pk}\n" in text
    assert "csrfmiddlewaretoken" not in text and "\x00" not in text


def drawn(world: World, showing: Showing) -> str:
    [card] = cards_for(world.campaign_a, Character.objects.filter(pk=world.npc_a.pk).select_related("player"), True)
    return card_html(card, showing)


def test_how_a_screen_shows_a_card_is_part_of_what_it_is_kept_by(world: World):
    gm = Showing(read_only=False, site="http://mesa")
    slot = f'id="slot-{world.npc_a.pk}" class="slot"'
    assert f'{slot} hx-preserve="true"' in drawn(world, gm)
    assert f"{slot}></div>" in drawn(world, replace(gm, closed_slot=str(world.npc_a.pk)))
    assert f'{slot} hx-preserve="true"' in drawn(world, replace(gm, closed_slot="party"))
    assert "hx-swap-oob" in drawn(world, replace(gm, oob=True)) and "hx-swap-oob" not in drawn(world, gm)
    assert "http://mesa/invite/" in drawn(world, gm)
    assert "https://otra/invite/" in drawn(world, replace(gm, site="https://otra"))
    player = drawn(world, Showing(read_only=True, site="http://mesa"))
    assert "quick-damage" not in player and "Tomás" in player


def another(field, value: object) -> object:
    """A value of this field other than `value`: a row's field as an edit would change it."""
    if field.is_relation:
        return field.related_model._default_manager.exclude(pk=value).values_list("pk", flat=True).first()
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "·"
    if value is None:
        return 1
    if isinstance(value, dict):
        return {**value, "otro": 1}
    if isinstance(value, list):
        return [*value, 1]
    return value + timedelta(seconds=1)  # a date and time


def changed(row: Model, field) -> Model:
    other = copy.copy(row)
    setattr(other, field.attname, another(field, getattr(row, field.attname)))
    return other


def test_every_stored_field_of_a_cards_rows_changes_what_it_is_kept_by(world: World):
    actions.expose(world.campaign_a, [world.char_a1], plague(), dice_by_character={world.char_a1.pk: 1}, by=world.gm_a)
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a)
    Invitation.objects.create(campaign=world.campaign_a, character=world.char_a1)
    seen = characters_seen_by(table_of(world.campaign_a)).filter(pk=world.char_a1.pk).select_related("player")
    [card] = cards_for(world.campaign_a, seen, invitations=True)
    assert card.wound_values and card.illness_rows and card.invitation and card.character.player
    variants: list[Card] = [replace(card, clock=card.clock + 1)]
    for field in Character._meta.concrete_fields:
        variants.append(replace(card, character=changed(card.character, field)))
    for field in type(card.character.player)._meta.concrete_fields:
        character = copy.copy(card.character)
        character.player = changed(card.character.player, field)
        variants.append(replace(card, character=character))
    for i in range(len(card.wound_values[0])):
        values = list(card.wound_values[0])
        values[i] = another(Wound._meta.concrete_fields[i], values[i])
        variants.append(replace(card, wound_values=[tuple(values), *card.wound_values[1:]]))
    [illness] = card.illness_rows
    for field in Illness._meta.concrete_fields:
        variants.append(replace(card, illness_rows=[changed(illness, field)]))
    for field in Disease._meta.concrete_fields:
        with_disease = copy.copy(illness)
        with_disease.disease = changed(illness.disease, field)
        variants.append(replace(card, illness_rows=[with_disease]))
    for field in Invitation._meta.concrete_fields:
        variants.append(replace(card, invitation=changed(card.invitation, field)))
    variants.append(replace(card, invitation=None))
    keys = [variant.drawn_from for variant in variants]
    assert card.drawn_from not in keys
    assert len(set(keys)) == len(keys)


def test_who_rests_is_drawn_from_the_names_and_ticks(world: World):
    unbound = AdvanceForm(campaign=world.campaign_a)
    assert unbound.resting_html.count(" checked>") == 3
    bound = AdvanceForm({"resting": [str(world.char_a2.pk)]}, campaign=world.campaign_a)
    html = bound.resting_html
    assert (
        html.count(" checked>") == 1
        and f'value="{world.char_a2.pk}" id="rest-{world.char_a2.pk}" hx-preserve="true" checked' in html
    )
    rename_a_character(world)
    assert "Borin el Rojo" in AdvanceForm(campaign=world.campaign_a).resting_html


def test_the_least_recently_used_goes_first():
    recent: Recent[str, int] = Recent(2)
    recent.put("a", 1)
    recent.put("b", 2)
    assert recent.get("a") == 1  # "b" is now the least recently used
    recent.put("c", 3)
    assert recent.get("b") is None and recent.get("a") == 1 and recent.get("c") == 3 and len(recent) == 2


def test_an_edited_template_or_translation_is_drawn_anew(world: World):
    page(client_for(world.gm_a), world)
    assert len(fragments._drawn) and len(log._worded)
    file_changed.send(sender=None, file_path=Path("play/cards.py"))  # Python: the server restarts anyway
    assert len(fragments._drawn) and len(log._worded)
    file_changed.send(sender=None, file_path=Path("templates/components/card.html"))
    assert not len(fragments._drawn) and not len(log._worded)


def add_characters(world: World, first: int, last: int) -> None:
    """Characters in play, each wounded, a third of them ill, some of them with a pending invitation link."""
    for n in range(first, last):
        player = make_user(f"jugador-{n}") if n % 2 else None
        character = Character.objects.create(
            campaign=world.campaign_a, name=f"Extra {n}", constitution=10, player=player
        )
        actions.apply_damage(world.campaign_a, [character], Attack(amount=3), by=world.gm_a)
        if n % 3 == 0:
            actions.expose(world.campaign_a, [character], plague(), dice_by_character={character.pk: 1}, by=world.gm_a)
        if n % 4 == 0 and player is None:
            Invitation.objects.create(campaign=world.campaign_a, character=character)


def table_queries(world: World) -> int:
    client = client_for(world.gm_a)
    page(client, world)  # the cards drawn: the next page serves them kept
    with CaptureQueriesContext(connection) as queries:
        page(client, world)
    fragments._drawn.clear()
    with CaptureQueriesContext(connection) as drawing:
        page(client, world)
    assert len(drawing) == len(queries)  # drawing a card anew reads nothing more
    return len(queries)


def test_the_table_costs_the_same_queries_with_4_or_40_characters(world: World):
    actions.remove_character(world.campaign_a, world.char_a2, by=world.gm_a)  # the log still names it
    add_characters(world, 0, 4)
    few = table_queries(world)
    add_characters(world, 4, 40)
    assert table_queries(world) == few <= 11  # the 11th: the checks called and still waiting (play.checks)
