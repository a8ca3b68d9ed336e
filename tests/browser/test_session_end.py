"""The GM's table after the session ended in another tab: an action says so in one line with the way back, instead of
drawing the login page inside the table (config.login_required, static/js/site.js)."""

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from campaigns.models import Campaign
from characters.models import Character
from tests.helpers import card, opened, settled, sign_in, watch_errors

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LINES = {
    "es-ES": ("Tu sesión ha terminado: vuelve a entrar", "vuelve a entrar"),
    "en-US": ("Your session has ended: sign in again", "sign in again"),
}


def log_in(page: Page, username: str, password: str) -> None:
    """The login form, in whichever language the page is in (the page is on it already, or goes there)."""
    page.locator("input[name=username]").fill(username)
    page.locator("input[name=password]").fill(password)
    page.locator("input[name=password]").press("Enter")
    page.wait_for_load_state()


def two_tabs(context: BrowserContext, base: str, campaign: Campaign) -> tuple[Page, Page]:
    """The GM's table, and another tab of the same browser (one session for both)."""
    table, other = watch_errors(context.new_page()), watch_errors(context.new_page())
    other.goto(f"{base}/accounts/login/")
    log_in(other, "narrador", "cripta-narrador")
    other.wait_for_url(f"{base}/")
    table.goto(f"{base}/campaigns/{campaign.pk}/")
    settled(table)
    return table, other


def log_out(page: Page) -> None:
    page.locator("header form[action$='/logout/'] button").click()
    page.wait_for_url("**/accounts/login/")


def quick_damage(table: Page, name: str, amount: str) -> None:
    box = card(table, name).locator("[data-quick-damage]")
    box.fill(amount)
    box.press("Enter")


def expect_only_the_refused_request(page: Page, status: int) -> None:
    """The browser and htmx log the refused request itself (that is the point); nothing else may be logged."""
    assert page.errors and all(str(status) in error for error in page.errors), page.errors
    page.errors.clear()


@pytest.mark.parametrize("locale", LINES)
def test_an_action_after_a_logout_elsewhere_says_the_session_ended(browser: Browser, live_server, demo, locale):
    context = browser.new_context(locale=locale, viewport={"width": 1280, "height": 900})
    try:
        table, other = two_tabs(context, live_server.url, demo)
        line, link = LINES[locale]
        ended = table.get_by_role("alert").filter(has_text=line)
        expect(ended).to_be_hidden()
        log_out(other)

        borin = Character.objects.get(name="Borin")
        quick_damage(table, "Borin", "3")
        expect(ended).to_be_visible()
        expect(ended).to_have_text(line)
        assert Character.objects.get(pk=borin.pk).pg == borin.pg  # nothing done
        # The table is still the table: no login form drawn inside it, and only that one line says anything.
        expect(table.get_by_role("heading", name=demo.name)).to_be_visible()
        expect(table.locator("input[type=password]")).to_have_count(0)
        expect(table.get_by_role("alert").filter(visible=True)).to_have_count(1)
        expect_only_the_refused_request(table, 401)

        # The way back: sign in again, and land on the table.
        table.get_by_role("link", name=link).click()
        table.wait_for_url(f"**/accounts/login/?next=/campaigns/{demo.pk}/")
        log_in(table, "narrador", "cripta-narrador")
        table.wait_for_url(f"{live_server.url}/campaigns/{demo.pk}/")
        expect(table.get_by_role("heading", name=demo.name)).to_be_visible()
        assert table.errors == [] and other.errors == []
    finally:
        context.close()


def test_an_action_after_signing_in_again_elsewhere_asks_for_a_reload(browser: Browser, live_server, demo):
    # Signing in anew gives the browser a new CSRF token, so the table's requests carry one that is no longer good:
    # refused (403), and the page must say so rather than leave the click without an answer.
    context = browser.new_context(locale="es-ES", viewport={"width": 1280, "height": 900})
    try:
        table, other = two_tabs(context, live_server.url, demo)
        log_out(other)
        log_in(other, "narrador", "cripta-narrador")
        borin = Character.objects.get(name="Borin")
        quick_damage(table, "Borin", "3")
        expect(table.get_by_role("alert").filter(visible=True)).to_have_text(
            "No se ha podido hacer: recarga la página y vuelve a intentarlo."
        )
        assert Character.objects.get(pk=borin.pk).pg == borin.pg
        expect_only_the_refused_request(table, 403)
        table.reload()
        quick_damage(table, "Borin", "3")
        expect(card(table, "Borin")).to_contain_text(f"{borin.pg - 3} / {borin.max_pg}")
        assert table.errors == [] and other.errors == []
    finally:
        context.close()


def test_other_scripts_can_show_the_line_and_a_good_answer_hides_it(browser: Browser, demo, server: str):
    # window.twelveplus.sessionEnded() is for a script that learns it on its own (a live stream refused).
    context = browser.new_context(locale="es-ES", viewport={"width": 375, "height": 740}, is_mobile=True)
    try:
        sign_in(context, server, "narrador")
        table = watch_errors(context.new_page())
        table.goto(f"{server}/campaigns/{demo.pk}/")
        settled(table)
        ended = table.get_by_role("alert").filter(has_text=LINES["es-ES"][0])
        table.evaluate("window.twelveplus.sessionEnded()")
        expect(ended).to_be_visible()
        opened(card(table, "Borin")).get_by_role("link", name="Daño", exact=True).click()
        expect(card(table, "Borin").locator("form.action-form")).to_be_visible()
        expect(ended).to_be_hidden()
        assert table.errors == []
    finally:
        context.close()
