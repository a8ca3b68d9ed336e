"""Issue 48 (items 8 and 10): a screen that no longer follows its campaign says so where the person is. A co-GM removed
while their phone (375 × 812) is scrolled down to a card sees the notice in the window, every control of the table is
disabled naming it, and a blow tried then is not sent; a blow sent before the screen knew is refused with the right
reason ("Ya no narras esta campaña"), not "se quitó o se borró en otra pestaña". "Tu sesión ha terminado" is seen the
same way. A player made co-GM is told at once on their open page, with the way to the table; removed again, their
table says so, with the way back to their page."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, BrowserContext, Page, expect

from campaigns.models import Campaign, Invitation
from characters.models import Character
from rules import actions
from tests.helpers import card, settled, sign_in, watch_errors

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
NOT_GM = "Ya no narras esta campaña"
ENABLED_CONTROLS = """() => Array.from(document.querySelectorAll(
    "main a[href], main button, main input:not([type=hidden]), main select, main textarea"))
  .filter((e) => !e.closest("[role=alert]"))
  .filter((e) => !e.disabled && e.getAttribute("aria-disabled") !== "true")
  .map((e) => e.outerHTML.slice(0, 80))"""


def phone_of(browser: Browser, base: str, username: str) -> BrowserContext:
    context = browser.new_context(locale="es-ES", **PHONE)
    sign_in(context, base, username)
    return context


def opened(context: BrowserContext, url: str, live: bool = True) -> Page:
    page = watch_errors(context.new_page())
    page.goto(url)
    if live:
        expect(page.locator("body[data-live]")).to_have_count(1)
    page.evaluate("window.stillTheSamePage = true")
    return page


def make_co_gm(campaign: Campaign, username: str):
    user = get_user_model().objects.filter(username=username).first() or get_user_model().objects.create_user(
        username, password="no-se-usa"
    )
    link = actions.create_co_gm_invitation(campaign, by=campaign.gm).event
    assert link is not None
    actions.claim_invitation(Invitation.objects.get(pk=link.details["invitation"]).token, user)
    return user


def in_window(page: Page, selector: str) -> None:
    """The element is seen where the page is scrolled to: its box lies inside the window."""
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], (box, size)
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"], (box, size)


def scrolled_to(page: Page, name: str) -> None:
    """The phone scrolled to this character's row, at the top of the window: the top of the page, where the notices
    used to be, out of sight."""
    card(page, name).evaluate("row => row.scrollIntoView({block: 'start'})")
    expect(page.locator("h1")).not_to_be_in_viewport()


def test_a_removed_co_gms_phone_sees_the_notice_where_it_is_and_cannot_act(
    browser: Browser, server: str, demo: Campaign
):
    carla = make_co_gm(demo, "carla")
    sibila = Character.objects.get(name="Sibila")
    context = phone_of(browser, server, "carla")
    try:
        phone = opened(context, f"{server}/campaigns/{demo.pk}/")
        scrolled_to(phone, "Sibila")
        at = phone.evaluate("window.scrollY")
        actions.remove_co_gm(demo, carla.pk, by=demo.gm)

        notice = phone.locator("#screen-gone")
        expect(notice).to_be_visible()
        expect(notice).to_contain_text(NOT_GM)
        expect(notice).to_have_attribute("role", "alert")
        in_window(phone, "#screen-gone")
        assert phone.evaluate("window.scrollY") == at  # the page did not jump to the top to say it
        expect(card(phone, "Sibila")).to_be_in_viewport()
        phone.screenshot(path="/tmp/issue48-removed-co-gm-phone.png", caret="initial")

        # Every control of the table is disabled, and names the notice as the reason.
        assert phone.evaluate(ENABLED_CONTROLS) == []
        damage = card(phone, "Sibila").locator("a[data-shortcut=damage]")  # folded under "Más"
        expect(damage).to_be_disabled()
        expect(damage).to_have_attribute("aria-describedby", "screen-gone")
        expect(damage).to_have_attribute(
            "title", f"{NOT_GM}, o ya no existe: esta mesa ya no cambia y sus controles están desactivados."
        )
        expect(card(phone, "Sibila").get_by_label("Daño rápido")).to_be_disabled()
        expect(phone.get_by_role("link", name="Daño a varios")).to_be_disabled()

        # A blow tried anyway (the keys, a tap) is not sent; the notice says why again.
        sent = []
        phone.on("request", lambda request: sent.append(request.url) if "/act/" in request.url else None)
        card(phone, "Sibila").locator("h3 a").focus()
        for key in ("3", "Enter", "d", "v"):
            phone.keyboard.press(key)
        damage.dispatch_event("click")
        phone.wait_for_timeout(300)
        assert sent == []
        expect(notice).to_contain_text(NOT_GM)
        expect(phone.locator("#not-found")).to_be_hidden()
        assert Character.objects.get(pk=sibila.pk).pg == sibila.pg
        assert phone.evaluate("window.stillTheSamePage") is True and phone.errors == []
    finally:
        context.close()


def test_a_blow_sent_before_the_screen_knew_is_refused_with_the_right_reason(
    browser: Browser, live_server, demo: Campaign
):
    """Without a live stream (the WSGI test server serves none) the table learns of the removal only from the refusal:
    the 404 says what the account is at the campaign now, and the table says why, where the person is."""
    carla = make_co_gm(demo, "carla")
    context = phone_of(browser, live_server.url, "carla")
    try:
        phone = opened(context, f"{live_server.url}/campaigns/{demo.pk}/", live=False)
        scrolled_to(phone, "Sibila")
        actions.remove_co_gm(demo, carla.pk, by=demo.gm)
        box = card(phone, "Sibila").get_by_label("Daño rápido")
        box.fill("3")
        box.press("Enter")
        notice = phone.locator("#screen-gone")
        expect(notice).to_be_visible()
        expect(notice).to_contain_text(NOT_GM)
        expect(phone.locator("#not-found")).to_be_hidden()  # not "se quitó o se borró en otra pestaña"
        in_window(phone, "#screen-gone")
        assert phone.evaluate(ENABLED_CONTROLS) == []
        phone.screenshot(path="/tmp/issue48-refused-co-gm-phone.png", caret="initial")
        assert all("404" in error for error in phone.errors), phone.errors  # the refused request, logged by the browser
    finally:
        context.close()


def test_a_session_ended_elsewhere_is_said_where_the_phone_is(browser: Browser, server: str, demo: Campaign):
    context = phone_of(browser, server, "narrador")
    try:
        phone = opened(context, f"{server}/campaigns/{demo.pk}/")
        scrolled_to(phone, "Sibila")
        other = context.new_page()
        other.goto(f"{server}/")
        other.get_by_role("button", name="Cerrar sesión").click()
        ended = phone.locator("#session-ended")
        expect(ended).to_be_visible()
        in_window(phone, "#session-ended")
        assert phone.evaluate(ENABLED_CONTROLS) == []
        expect(card(phone, "Sibila").get_by_label("Daño rápido")).to_have_attribute("aria-describedby", "session-ended")
        phone.screenshot(path="/tmp/issue48-session-ended-phone.png", caret="initial")
    finally:
        context.close()


def test_a_player_made_co_gm_is_told_on_their_open_page_and_back(browser: Browser, server: str, demo: Campaign):
    table = f"{server}/campaigns/{demo.pk}/"
    ana = get_user_model().objects.get(username="ana")
    context = phone_of(browser, server, "ana")
    try:
        page = opened(context, table)
        aldara = Character.objects.get(name="Aldara")
        sheet = opened(context, f"{table}characters/{aldara.pk}/")
        expect(card(page, "Borin")).to_have_count(0)  # her page: her own character and her companions
        make_co_gm(demo, "ana")

        for screen in (page, sheet):
            notice = screen.locator("#screen-gone")
            expect(notice).to_be_visible()
            expect(notice).to_contain_text("Ahora eres co-narrador de esta campaña")
            in_window(screen, "#screen-gone")
            assert screen.evaluate(ENABLED_CONTROLS) == []
        page.screenshot(path="/tmp/issue48-player-made-co-gm-phone.png", caret="initial")
        page.locator("#screen-gone").get_by_role("link", name="Abre la mesa").click()
        expect(card(page, "Borin")).to_have_count(1)  # the table, as a reload draws it
        expect(page.locator("body[data-live]")).to_have_count(1)

        # Removed as co-GM, she still plays Aldara: the table says so, with the way back to her page.
        actions.remove_co_gm(demo, ana.pk, by=demo.gm)
        notice = page.locator("#screen-gone")
        expect(notice).to_be_visible()
        expect(notice).to_contain_text(NOT_GM)
        expect(notice).to_contain_text("sigues jugando en ella")
        in_window(page, "#screen-gone")
        page.screenshot(path="/tmp/issue48-co-gm-made-player-phone.png", caret="initial")
        notice.get_by_role("link", name="Abre tu página de jugador").click()
        expect(page.locator("main")).to_contain_text("Aldara")
        expect(card(page, "Borin")).to_have_count(0)
        settled(page)
        assert page.errors == [] and sheet.errors == []
    finally:
        context.close()
