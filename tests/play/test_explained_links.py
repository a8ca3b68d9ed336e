"""Every penalty and roll breakdown on the table and the sheet links to the rules page's line that explains it
("¿Por qué −4?"), and the sheet carries the PG timeline, live as on a fresh load."""

import re

import pytest
from django.urls import reverse

from campaigns import access
from characters.models import Character
from rules import actions
from rules.damage import Attack, Fall
from rules.models import Disease
from tests.helpers import HTMX, on_a_thread, streamed
from tests.regions import element_by_id, region_ids


def anchors_of_rules_page(client) -> set[str]:
    return set(re.findall(r'id="([a-z0-9-]+)"', client.get(reverse("rules")).content.decode()))


def test_a_penalty_links_to_its_row_of_the_table(world, client):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=77), by=world.gm_a)  # 3 PG: −4 / −4
    client.force_login(world.gm_a)
    table = client.get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    assert '<a class="why" href="/rules/#penalty-4">¿Por qué −4?</a>' in table
    assert 'href="/rules/#exertion"' in table  # the exertion warning at 3 PG
    sheet = client.get(reverse("character", args=[world.campaign_a.pk, world.char_a1.pk])).content.decode()
    assert 'href="/rules/#penalty-4"' in sheet and 'href="/rules/#recovery-attack"' in sheet
    assert {"penalty-4", "exertion", "recovery-attack"} <= anchors_of_rules_page(client)


def test_an_illness_and_a_roll_link_to_their_rules(world, client):
    plague = Disease.objects.get(name="Peste", builtin=True)
    actions.expose(world.campaign_a, [world.char_a1], plague, dice_by_character={world.char_a1.pk: 1}, by=world.gm_a)
    Character.objects.filter(pk=world.char_a2.pk).update(jump=0)
    fall = Fall(height_m=3, dice={world.char_a2.pk: 1})
    actions.apply_damage(world.campaign_a, [world.char_a2], fall, by=world.gm_a)
    client.force_login(world.gm_a)
    table = client.get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    assert '<a class="why" href="/rules/#illness-penalty">¿Por qué −2?</a>' in table
    # Aldara's PG is full: her penalty line owes everything to the plague, and says so
    assert re.search(r'class="penalties">[^<]*<a class="why" href="/rules/#illness-penalty">¿Por qué −2\?</a>', table)
    assert 'href="/rules/#damage-fall">¿Por qué?</a>' in table  # the fall check in the log
    assert 'href="/rules/#illness-resistance">¿Por qué?</a>' in table  # the resistance check
    assert {"illness-penalty", "damage-fall", "illness-resistance"} <= anchors_of_rules_page(client)


def test_the_links_speak_english_too(world, client):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=77), by=world.gm_a)
    client.force_login(world.gm_a)
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    table = client.get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    assert ">Why −4?</a>" in table and ">HP over time</a>" in table


@pytest.mark.django_db(transaction=True)  # the stream's drawing gives its connection back, as on a worker thread
def test_the_sheet_shows_the_timeline_and_its_live_update_carries_it(world, client):
    client.force_login(world.player_a)
    url = reverse("character", args=[world.campaign_a.pk, world.char_a1.pk])
    sheet = on_a_thread(lambda: client.get(url, **HTMX).content.decode())
    assert 'id="pg-timeline"' in sheet and "<svg" in sheet
    event = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a).event
    fresh = on_a_thread(lambda: client.get(url).content.decode())
    chart = re.search(r'<figure class="timeline".*?</figure>', fresh, re.S).group(0)
    assert 'class="marker attack"' in chart
    player = access.audience_of(world.player_a, world.campaign_a)
    text = streamed(player, sheet=world.char_a1.pk, event=event)
    assert text is not None and region_ids(text) == ["sheet", "sheet-log"]
    assert chart in element_by_id(text, "sheet").html  # live equals reload
