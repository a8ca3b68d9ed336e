"""One path to every screen (issue 20, docs/architecture.md principle 3): with the table full — two phones, a sheet and
a second GM tab changing something every 300 ms — the GM's keyboard keeps its place, every blow applies exactly once,
what is being typed stays; and the ends of a screen are said in words: a campaign deleted, a character removed (and
brought back by an undo), an undone check's old result, a refused die drawn as it was first drawn."""

import re

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from campaigns.models import Campaign, Event
from characters.models import Character
from rules import actions
from rules.actions import Call
from rules.models import CheckKind
from tests.helpers import card, opened, plague, sign_in, watch_errors

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"viewport": {"width": 375, "height": 740}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}


def signed_in(browser: Browser, base: str, username: str, phone: bool = False) -> BrowserContext:
    context = browser.new_context(locale="es-ES", **(PHONE if phone else {"viewport": {"width": 1280, "height": 900}}))
    sign_in(context, base, username)
    return context


def live_page(context: BrowserContext, url: str) -> Page:
    """A page whose stream has sent the whole screen (the first message): from then on it follows every change."""
    page = watch_errors(context.new_page())
    page.goto(url)
    expect(page.locator("body[data-live]")).to_have_count(1)
    page.evaluate("window.stillTheSamePage = true")  # gone if anything reloads the page
    return page


def focused_card(page: Page) -> str:
    return page.evaluate("(document.activeElement.closest('.card') || {}).id || document.activeElement.tagName")


def test_fifty_quick_blows_with_the_table_full(browser: Browser, server: str, demo: Campaign):
    table = f"{server}/campaigns/{demo.pk}/"
    borin = Character.objects.get(name="Borin")
    gm, gm_b = signed_in(browser, server, "narrador"), signed_in(browser, server, "narrador")
    ana, bruno = signed_in(browser, server, "ana", phone=True), signed_in(browser, server, "bruno", phone=True)
    try:
        acting = live_page(gm, table)
        watching = [
            live_page(ana, table),
            live_page(bruno, table),
            live_page(gm, f"{table}characters/{borin.pk}/"),
        ]
        other = live_page(gm_b, table)
        # The second GM tab moves the clock a turn every 300 ms: every card, the clock, the log change all the time.
        other.evaluate(
            """() => { window.ticker = setInterval(() => {
                 document.querySelector('#form-advance button[name=preset][value="6"]').click(); }, 300); }"""
        )
        blows_before = Event.objects.filter(action="damage", characters=[borin.pk]).count()
        acting.locator(f"#character-{borin.pk}").focus()
        for blow in range(50):
            with acting.expect_response(lambda response: "/act/damage/" in response.url):
                acting.keyboard.press("1")
                acting.keyboard.press("Enter")
            focus = f"the focus after blow {blow + 1} of 50"
            expect(acting.locator(f"#character-{borin.pk}"), focus).to_be_focused()  # 50 of 50, or this fails
        other.evaluate("clearInterval(window.ticker)")
        assert Event.objects.filter(action="damage", characters=[borin.pk]).count() == blows_before + 50
        borin.refresh_from_db()
        expect(acting.locator(f"#card-{borin.pk} .pg-value")).to_have_text(str(borin.pg))
        expect(watching[1].locator(f"#card-{borin.pk} .pg-value")).to_have_text(str(borin.pg))  # bruno's phone
        expect(watching[2].locator(".sheet-state .pg-value")).to_have_text(str(borin.pg))  # the GM's sheet tab

        # Typing into an open form while changes arrive: no keystroke lost, the focus stays.
        other.evaluate(
            """() => { window.ticker = setInterval(() => {
                 document.querySelector('#form-advance button[name=preset][value="6"]').click(); }, 300); }"""
        )
        opened(card(acting, "Aldara")).get_by_role("link", name="Daño", exact=True).click()
        amount = card(acting, "Aldara").get_by_label("Daño (PG o tirada)")
        expect(amount).to_be_focused()
        amount.press_sequentially("2d6+1", delay=250)  # slower than the changes: several arrive meanwhile
        other.evaluate("clearInterval(window.ticker)")
        expect(amount).to_have_value("2d6+1")
        expect(amount).to_be_focused()
        for page in [acting, other, *watching]:
            assert page.evaluate("window.stillTheSamePage") is True
            assert page.errors == [], page.url
    finally:
        for context in (gm, gm_b, ana, bruno):
            context.close()


def test_a_deleted_campaign_is_said_on_every_open_screen_and_they_stop(browser: Browser, server: str, demo: Campaign):
    table = f"{server}/campaigns/{demo.pk}/"
    gm, ana = signed_in(browser, server, "narrador"), signed_in(browser, server, "ana", phone=True)
    try:
        tab, phone = live_page(gm, table), live_page(ana, table)
        actions.delete_campaign(demo, by=demo.gm, typed_name=demo.name)
        for page in (tab, phone):
            expect(page.locator("#screen-gone")).to_be_visible()
            expect(page.locator("#screen-gone")).to_contain_text("ya no existe")
        asked = []
        tab.on("request", lambda request: asked.append(request.url) if "/stream/" in request.url else None)
        tab.wait_for_timeout(4500)  # the browser would retry after 2 s: it does not
        assert asked == []
        # An action there: the screen says so; Django's 404 page never replaces it.
        tab.locator(".card").first.focus()
        tab.keyboard.press("3")
        tab.keyboard.press("Enter")
        expect(tab.locator("#screen-gone")).to_be_visible()
        assert tab.evaluate("window.stillTheSamePage") is True
    finally:
        gm.close()
        ana.close()


def test_a_removed_characters_open_sheet_says_so_and_an_undo_brings_it_back(
    browser: Browser, server: str, demo: Campaign
):
    tomas = Character.objects.get(name="Hermano Tomás")
    gm = signed_in(browser, server, "narrador")
    try:
        sheet = live_page(gm, f"{server}/campaigns/{demo.pk}/characters/{tomas.pk}/")
        actions.remove_character(demo, tomas, by=demo.gm)
        expect(sheet.locator(".sheet-state")).to_contain_text("Hermano Tomás ha salido de la campaña")
        actions.undo(demo, by=demo.gm)
        expect(sheet.locator(".sheet-state .pg-value")).to_have_text(str(tomas.pg))
        assert sheet.evaluate("window.stillTheSamePage") is True and sheet.errors == []
    finally:
        gm.close()


def test_an_undone_answer_clears_its_old_result_on_every_screen(browser: Browser, server: str, demo: Campaign):
    aldara = Character.objects.get(name="Aldara")
    table = f"{server}/campaigns/{demo.pk}/"
    ana = signed_in(browser, server, "ana", phone=True)
    try:
        page, sheet = live_page(ana, table), live_page(ana, f"{table}characters/{aldara.pk}/")
        actions.call_check(demo, [aldara], Call(CheckKind.RESISTANCE, disease=plague()), by=demo.gm)
        die = page.get_by_label("Tu dado (1–12)")
        die.fill("12")
        die.press("Enter")
        expect(page.locator("#check-said")).to_contain_text("éxito")
        actions.undo(demo, by=demo.gm)  # the answer undone: the check waits for its die again
        expect(page.get_by_label("Tu dado (1–12)")).to_be_visible()
        expect(page.locator("#check-said")).to_have_text("")
        expect(sheet.locator("#check-said")).to_have_text("")
        expect(sheet.get_by_label("Tu dado (1–12)")).to_be_visible()
    finally:
        ana.close()


def test_a_refused_die_is_drawn_again_as_it_was_first_drawn(browser: Browser, server: str, demo: Campaign):
    aldara = Character.objects.get(name="Aldara")
    actions.expose(demo, [aldara], plague(), by=demo.gm, dice_by_character={aldara.pk: 1})  # −2 to every roll
    actions.call_check(demo, [aldara], Call(CheckKind.FALL, height_m=6), by=demo.gm)
    ana = signed_in(browser, server, "ana", phone=True)
    try:
        page = live_page(ana, f"{server}/campaigns/{demo.pk}/")
        formula = page.locator("#my-checks .formula")
        expect(formula).to_contain_text("− 2 (Peste)")
        first = formula.inner_text()
        die = page.get_by_label("Tu dado (1–20)")
        die.fill("25")
        die.press("Enter")
        expect(page.locator("#my-checks [role=alert]")).to_be_visible()
        expect(page.locator("#my-checks .formula")).to_have_text(first)  # the penalty is still said
        expect(page.get_by_label("Tu dado (1–20)")).to_be_focused()
        assert page.errors == []
    finally:
        ana.close()


def test_a_session_ended_in_another_tab_is_said_at_once_and_never_draws_the_login_page(
    browser: Browser, server: str, demo: Campaign
):
    gm = signed_in(browser, server, "narrador")
    try:
        table = live_page(gm, f"{server}/campaigns/{demo.pk}/")
        other = gm.new_page()
        other.goto(f"{server}/")
        other.get_by_role("button", name="Cerrar sesión").click()  # the same browser, another tab
        ended = table.locator("#session-ended")
        expect(ended).to_be_visible()  # said by the stream as it ends, before anything is tried
        expect(ended).to_contain_text("Tu sesión ha terminado")
        expect(ended.get_by_role("link", name="vuelve a entrar")).to_have_attribute("href", re.compile(r"next="))
        pg = table.locator(".card .pg-value").first.inner_text()
        table.locator(".card").first.focus()
        table.keyboard.press("3")
        table.keyboard.press("Enter")  # a quick damage now: refused, and said, in place
        expect(ended).to_be_visible()
        expect(table.locator("#table")).to_be_visible()
        expect(table.locator("input[name=password]")).to_have_count(0)  # no login page inside the table
        expect(table.locator(".card .pg-value").first).to_have_text(pg)
        assert table.evaluate("window.stillTheSamePage") is True
    finally:
        gm.close()
