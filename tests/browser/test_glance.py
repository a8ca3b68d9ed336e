"""Issue 51, the party at a glance, measured in a real browser: with the demo campaign grown to the party's size, every
character's name, PG / max and condition word are inside the first viewport together with the clock — on the GM's
table at 1280×800 (8 characters), 1920×1080 (16) and on a 375×812 phone (6), and on a player's phone page (their own
PG, every visible companion's word) — and the rows are worked from the keyboard: a quick damage keeps the focus on
its row, and a row's damage form opens and closes over the rows below, moving none of them."""

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from campaigns.models import Campaign
from characters.models import Character
from rules import actions
from tests.helpers import card, screenshot, settled, sign_in, watch_errors

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def grow(campaign: Campaign, size: int) -> None:
    """The demo party grown to `size` characters in play, each added as the GM adds one (NPCs, Mercenario 1, 2…)."""
    for number in range(size - campaign.characters.count()):
        sheet = actions.Sheet(f"Mercenario {number + 1}", 10, 4, 2, 40, "")
        actions.add_character(campaign, sheet, by=campaign.gm)


def screen(browser: Browser, server: str, username: str, width: int, height: int) -> tuple[BrowserContext, Page]:
    phone = width < 600
    context = browser.new_context(
        locale="es-ES",
        viewport={"width": width, "height": height},
        is_mobile=phone,
        has_touch=phone,
        device_scale_factor=2 if phone else 1,
    )
    sign_in(context, server, username)
    return context, watch_errors(context.new_page())


def in_first_viewport(page: Page, element: Locator) -> bool:
    """Whether the element lies wholly inside the window as the page opens (not scrolled), with some size."""
    box = element.bounding_box()
    size = page.viewport_size
    assert size is not None
    return (
        box is not None
        and box["width"] > 0
        and box["height"] > 0
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= size["width"]
        and box["y"] + box["height"] <= size["height"]
    )


def outside(page: Page, elements: Locator) -> list[str]:
    """What of these elements is not wholly in the first viewport: their texts."""
    each = [elements.nth(i) for i in range(elements.count())]
    return [element.inner_text() for element in each if not in_first_viewport(page, element)]


@pytest.mark.parametrize(("width", "height", "size"), [(1280, 800, 8), (1920, 1080, 16), (375, 812, 6)])
def test_the_gm_sees_every_characters_pg_with_the_clock(
    browser: Browser, server: str, demo: Campaign, width: int, height: int, size: int
):
    grow(demo, size)
    context, page = screen(browser, server, "narrador", width, height)
    try:
        page.goto(f"{server}/campaigns/{demo.pk}/")
        rows = page.locator("#cards > li.card")
        expect(rows).to_have_count(size)
        screenshot(page, f"glance-gm-{width}x{height}", full_page=False)  # the first viewport, as measured
        assert page.evaluate("window.scrollY") == 0
        assert in_first_viewport(page, page.locator("#clock")), "the clock"
        for part in ("h3 a", ".pg-numbers", ".condition"):
            assert outside(page, rows.locator(part)) == [], f"{part} of every row in the first {width}×{height}"
        # Nothing wider than the window (a phone scrolls down only).
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        context.close()


def test_the_gm_table_grows_with_the_window(browser: Browser, server: str, demo: Campaign):
    """Two columns of rows at 1280 px (the log beside them), three at 1920, one on a phone."""
    grow(demo, 6)
    for width, height, columns in ((1280, 800, 2), (1920, 1080, 3), (375, 812, 1)):
        context, page = screen(browser, server, "narrador", width, height)
        try:
            page.goto(f"{server}/campaigns/{demo.pk}/")
            lefts = page.locator("#cards > li.card").evaluate_all("rows => rows.map(row => row.offsetLeft)")
            assert len(set(lefts)) == columns, f"{columns} column(s) of rows at {width} px"
        finally:
            context.close()


def test_a_player_phone_shows_their_pg_and_every_companions_word(browser: Browser, server: str, demo: Campaign):
    grow(demo, 6)
    context, page = screen(browser, server, "ana", 375, 812)
    try:
        page.goto(f"{server}/campaigns/{demo.pk}/")
        own = page.locator("#cards > li.card")
        expect(own).to_have_count(1)
        screenshot(page, "glance-player-375x812", full_page=False)
        assert in_first_viewport(page, own.locator(".pg-numbers")), "the player's own PG"
        assert in_first_viewport(page, own.locator(".condition"))
        companions = page.locator("li.companion")
        expect(companions).to_have_count(5)  # the demo campaign shows each companion as one word
        assert outside(page, companions.locator(".companion-name")) == []
        assert outside(page, companions.locator(".companion-state")) == []
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
    finally:
        context.close()


def boxes(rows: Locator) -> list[dict[str, float]]:
    return rows.evaluate_all(
        "rows => rows.map(row => { const box = row.getBoundingClientRect(); "
        "return {x: box.x, y: box.y, h: box.height}; })"
    )


def test_the_keyboard_works_the_rows(browser: Browser, server: str, demo: Campaign):
    """Focus the third row, type 7 and Enter: 7 PG to that character, the focus still on its row, and both players'
    phones, open meanwhile, say its new word. Its damage form (`d`) opens and closes (Escape) with every other row
    where it was; `o` opens and closes its details."""
    grow(demo, 8)
    context, page = screen(browser, server, "narrador", 1280, 800)
    phones = [screen(browser, server, player, 375, 812) for player in ("ana", "bruno")]
    try:
        for _, phone in phones:
            phone.goto(f"{server}/campaigns/{demo.pk}/")
            expect(phone.locator("body[data-live]")).to_have_count(1)
        page.goto(f"{server}/campaigns/{demo.pk}/")
        rows = page.locator("#cards > li.card")
        expect(rows).to_have_count(8)
        third = rows.nth(2)
        name = third.locator("h3 a").inner_text()
        character = Character.objects.get(campaign=demo, name=name)
        was = character.pg
        for _ in range(3):
            page.keyboard.press("j")
        expect(third.locator("h3 a")).to_be_focused()

        page.keyboard.type("7")
        expect(third.locator("[data-quick-damage]")).to_be_focused()
        page.keyboard.press("Enter")
        expect(third.locator(".pg-value")).to_have_text(str(was - 7))
        expect(third).to_be_focused()  # the row itself: the change redrew what is inside it
        character.refresh_from_db()
        assert character.pg == was - 7
        for _, phone in phones:  # 7 PG off a character unhurt or hurt leaves it "Herido", a companion's word
            told = phone.locator("li.companion").filter(has=phone.locator(".companion-name", has_text=name))
            expect(told.locator(".companion-state")).to_have_text("Herido")

        before = boxes(rows)
        page.keyboard.press("d")
        form = third.locator(".slot form.action-form")
        expect(form).to_be_visible()
        settled(page)
        assert boxes(rows) == before, "no row moves when a row's damage form opens"
        page.keyboard.press("Escape")
        expect(form).to_have_count(0)
        assert boxes(rows) == before, "nor when it closes"
        expect(third.locator("h3 a")).to_be_focused()

        details = third.locator(".row-details")
        expect(details).to_be_hidden()
        page.keyboard.press("o")
        expect(details).to_be_visible()
        expect(third.locator(".card-actions a", has_text="Tratar heridas")).to_be_visible()
        expect(third.locator("h3 a")).to_be_focused()
        opened = boxes(rows)
        assert opened[:2] == before[:2] and opened[2]["y"] == before[2]["y"], "it opens downwards, in place"
        page.keyboard.press("o")
        expect(details).to_be_hidden()
    finally:
        context.close()
        for phone_context, _ in phones:
            phone_context.close()


def test_the_settings_are_folded_away_and_one_click_from_the_top(page: Page, server: str, demo: Campaign):
    sign_in(page.context, server, "narrador")
    page.goto(f"{server}/campaigns/{demo.pk}/")
    settings = page.locator("details#settings")
    expect(settings).not_to_have_attribute("open", "")
    expect(page.get_by_role("link", name="Co-narradores")).to_be_hidden()
    page.get_by_role("link", name="Ajustes", exact=True).click()
    expect(settings).to_have_attribute("open", "")
    expect(page.get_by_role("link", name="Co-narradores")).to_be_visible()
    expect(page.locator("#party_view")).to_be_visible()
    expect(card(page, "Borin")).to_be_visible()
