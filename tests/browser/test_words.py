"""Words (issue 24) as a player and a GM see them, in Spanish and English, on a phone and a desktop: a healing time
said to two units with the exact one in its tooltip and on the sheet, built-in diseases named in the reader's
language, penalties with a minus sign."""

import pytest
from django.conf import settings
from playwright.sync_api import Browser, Page, expect

from campaigns.models import Campaign
from characters.models import Character
from rules import actions
from tests.helpers import log_in, page_width, screenshot, watch_errors

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WORDS = {
    "es": {"exactly": "Exactamente:", "plague": "Peste", "cold": "Resfrío común"},
    "en": {"exactly": "Exactly:", "plague": "Plague", "cold": "Common cold"},
}


def signed_in(browser: Browser, base_url: str, user: str, language: str, width: int) -> Page:
    """A browser `width` px wide, signed in (on the Spanish login page) and then reading the site in `language`."""
    context = browser.new_context(locale="es-ES", viewport={"width": width, "height": 800}, is_mobile=width < 500)
    page = watch_errors(context.new_page())
    log_in(page, base_url, user, f"cripta-{user}")
    context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": base_url}])
    return page


@pytest.mark.parametrize("language", ["es", "en"])
def test_a_player_reads_a_healing_time_as_people_say_it(browser: Browser, live_server, demo: Campaign, language):
    borin = Character.objects.get(name="Borin")
    actions.advance_clock(demo, 2 * 3600 + 61, by=demo.gm)  # an odd advance: healing times to the second
    phone = signed_in(browser, live_server.url, "bruno", language, 375)
    phone.goto(f"{live_server.url}/campaigns/{demo.pk}/characters/{borin.pk}/")
    spoken = phone.locator(".wounds span[title]").first
    expect(spoken).to_be_visible()
    exact = spoken.get_attribute("title") or ""
    assert len(exact.split()) > len(spoken.inner_text().split())  # the tooltip says more: the exact time
    assert exact.startswith(spoken.inner_text())
    expect(phone.locator(".wounds")).to_contain_text(f"{WORDS[language]['exactly']} {exact}.")
    assert page_width(phone) <= 375
    screenshot(phone, f"words-sheet-healing-time-{language}-375")
    assert phone.errors == []
    phone.context.close()


@pytest.mark.parametrize("language", ["es", "en"])
def test_the_gm_reads_the_diseases_in_their_language(browser: Browser, live_server, demo: Campaign, language):
    page = signed_in(browser, live_server.url, "narrador", language, 1280)
    page.goto(f"{live_server.url}/campaigns/{demo.pk}/diseases/")
    shared = page.locator("table.diseases").last
    expect(shared).to_contain_text(WORDS[language]["plague"])
    expect(shared).to_contain_text(WORDS[language]["cold"])
    expect(shared).to_contain_text("−2")
    assert "-2" not in shared.inner_text()
    screenshot(page, f"words-diseases-{language}-1280")
    assert page.errors == []
    page.context.close()
