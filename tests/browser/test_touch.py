"""Targets a thumb can hit (issue 24, WCAG 2.2 success criterion 2.5.8): every link, button, box, list and disclosure
visible on the GM's table (with forms, the help, a preview and an invitation's QR code open), a player's page and a
character's sheet is at least 24 × 24 CSS px, on a 375 px phone and at 1280 px. Every one: not even a link inside a
line of text takes the spacing exception. And a "¿Por qué?" link lands on its row of the rules below the table's
column headers, which stay in view."""

import pytest
from playwright.sync_api import Page, expect

from campaigns.models import Campaign
from characters.models import Character
from rules import actions
from rules.damage import Attack
from rules.models import CheckKind
from tests.helpers import card, opened, page_width, screenshot, settled, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TARGET = 24  # CSS px, WCAG 2.2 target size (minimum)

# Every element a pointer acts on, as it is drawn: its size, and what it is for a message. An element made invisible
# to everyone (hidden, display: none, the visually-hidden submit button Enter uses) is no target.
TOO_SMALL = """(least) => Array.from(document.querySelectorAll(
    'a[href], button, input:not([type=hidden]), select, textarea, summary'))
  .filter((e) => e.checkVisibility({ visibilityProperty: true }) && !e.closest('.sr-only'))
  .map((e) => [e, e.getBoundingClientRect()])
  .filter(([e, box]) => box.width < least || box.height < least)
  .map(([e, box]) => `${e.tagName.toLowerCase()} "${(e.textContent || e.value || e.name).trim().slice(0, 40)}" `
    + `${box.width.toFixed(1)} × ${box.height.toFixed(1)}`)"""


def too_small(page: Page) -> list[str]:
    return page.evaluate(TOO_SMALL, TARGET)


@pytest.fixture
def scene(demo: Campaign) -> Campaign:
    """Everything the screens can show at once: Aldara at 4 PG (penalties, the exertion warning, their "¿Por qué?"
    links), hurt companions shown by one word, a check called for her and one for Borin, a log with rolls."""
    aldara, borin = Character.objects.get(name="Aldara"), Character.objects.get(name="Borin")
    actions.apply_damage(demo, [aldara], Attack(amount=aldara.pg - 4), by=demo.gm)
    actions.apply_damage(demo, [borin], Attack(amount=5), by=demo.gm)
    actions.call_check(demo, [aldara], actions.Call(CheckKind.EXERTION), by=demo.gm)
    actions.call_check(demo, [borin], actions.Call(CheckKind.FALL, height_m=3), by=demo.gm)
    return demo


def every_screen(page: Page, base: str, campaign: Campaign, name: str, language: str) -> dict[str, list[str]]:
    """What is too small on each screen, the GM's and Ana's, in one language, screenshots taken."""
    found = {}
    aldara = Character.objects.get(name="Aldara")
    speaks = {"name": "django_language", "value": language, "url": base}
    page.context.add_cookies([speaks])
    sign_in(page.context, base, "narrador")
    page.goto(f"{base}/campaigns/{campaign.pk}/")
    expect(page.locator("html")).to_have_attribute("lang", language)
    found["table"] = too_small(page)
    # Sibila's row opened first: a form opened from a row lies over the rows below it.
    opened(card(page, "Sibila")).locator(".qr summary").click()
    opened(card(page, "Aldara")).locator("[data-shortcut=damage]").click()
    settled(page)
    page.locator("#party-damage").click()
    settled(page)
    page.locator("[data-shortcuts]").click()
    page.locator("#advance-preview_first").check()
    page.locator("#form-advance button[name=preset][value='86400']").click()
    expect(page.locator("#preview-title")).to_be_visible()
    found["table, forms open"] = too_small(page)
    screenshot(page, f"touch-table-{name}-{language}")
    page.goto(f"{base}/campaigns/{campaign.pk}/characters/{aldara.pk}/")
    found["sheet, for the GM"] = too_small(page)

    page.context.clear_cookies()
    page.context.add_cookies([speaks])
    sign_in(page.context, base, "ana")
    page.goto(f"{base}/campaigns/{campaign.pk}/")
    expect(page.locator("#companions-title")).to_be_visible()
    found["player page"] = too_small(page)
    screenshot(page, f"touch-player-page-{name}-{language}")
    page.goto(f"{base}/campaigns/{campaign.pk}/characters/{aldara.pk}/")
    found["sheet"] = too_small(page)
    screenshot(page, f"touch-sheet-{name}-{language}")
    assert page_width(page) <= page.viewport_size["width"]
    return found


@pytest.mark.parametrize("language", ["es", "en"])
def test_every_target_is_big_enough_on_a_phone(phone: Page, live_server, scene: Campaign, language: str):
    found = every_screen(phone, live_server.url, scene, "phone", language)
    assert found == {screen: [] for screen in found}, found
    assert phone.errors == []


@pytest.mark.parametrize("language", ["es", "en"])
def test_every_target_is_big_enough_at_1280(page: Page, live_server, scene: Campaign, language: str):
    found = every_screen(page, live_server.url, scene, "1280", language)
    assert found == {screen: [] for screen in found}, found
    assert page.errors == []


def test_the_measure_would_catch_a_small_target(page: Page):
    # The tests above assert empty lists: make sure the measure finds what it should, and skips what is no target.
    page.set_content(
        '<html lang="es"><body><p>Texto <a href="#x" style="font-size:12px">enlace</a></p>'
        '<button hidden>oculto</button><button class="sr-only">Intro</button></body></html>'
    )
    found = too_small(page)
    assert len(found) == 1 and found[0].startswith('a "enlace"'), found


@pytest.mark.parametrize("width", [375, 1280])
def test_a_why_link_lands_on_its_row_below_the_column_headers(page: Page, live_server, scene: Campaign, width: int):
    # "¿Por qué −4?" on Ana's sheet: the row of the penalty table for 3–4 PG, with the column headers above it.
    page.set_viewport_size({"width": width, "height": 740})
    sign_in(page.context, live_server.url, "ana")
    aldara = Character.objects.get(name="Aldara")
    page.goto(f"{live_server.url}/campaigns/{scene.pk}/characters/{aldara.pk}/")
    page.get_by_role("link", name="¿Por qué −4?").click()
    page.wait_for_url("**/rules/#penalty-4")
    row = page.locator("#penalty-4")
    headers = row.locator("xpath=ancestor::table//thead//th").first  # sticky, each header cell
    expect(row).to_be_in_viewport()
    head, target = headers.bounding_box(), row.bounding_box()
    assert head is not None and target is not None
    assert head["y"] >= 0 and head["y"] + head["height"] <= target["y"] + 1, (head, target)  # in view, not over it
    assert target["y"] + target["height"] <= 740
    assert page_width(page) <= width  # the page itself never scrolls sideways
    screenshot(page, f"touch-why-row-{width}")
    assert page.errors == []
