"""Issue 48, item 13: an English reader reads "HP" wherever the cards say "PG" (its abbreviation, each wound, an
illness's weekly loss, a companion's line), in a real browser on a real ASGI server. The words come from the
catalogue (msgid "PG" → "HP" in locale/en). Screenshot in test-artifacts/."""

import pytest
from playwright.sync_api import Browser, expect

from campaigns.models import Campaign
from characters.models import Character
from rules import actions
from tests.browser.test_party import open_page
from tests.helpers import card, context_for, plague, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_cards_say_hp_in_english(browser: Browser, server: str, demo: Campaign):
    aldara = Character.objects.get(campaign=demo, name="Aldara")
    actions.expose(demo, [aldara], plague(), by=demo.gm, dice_by_character={aldara.pk: 1})
    context = context_for(browser, server, "narrador", locale="en-US")
    try:
        gm = open_page(context, f"{server}/campaigns/{demo.pk}/")
        state = card(gm, "Aldara").locator(".state")
        expect(state.locator(".pg-numbers abbr")).to_have_text("HP")
        expect(state.locator(".wounds")).to_contain_text(" HP")
        expect(state.locator(".illnesses")).to_contain_text("HP/")
        expect(state).not_to_contain_text("PG")
        screenshot(gm, "cards-hp-english")
        assert gm.errors == []
    finally:
        context.close()
