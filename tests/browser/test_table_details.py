"""Issue 48, item 13, as the GM meets it in a real browser on a real ASGI server: the undo button stays one line
however many characters its entry names (the whole words in its title); "Sucesos anteriores" is a target a thumb
hits on a phone; a session number no button sends is refused beside the session control and starts nothing; a
session whose blows share one campaign second charts them as steps, not a flat line. Screenshots in
test-artifacts/."""

import re

import pytest
from playwright.sync_api import Browser, expect

from campaigns.models import Campaign, GameSession
from characters.models import Character
from rules import actions
from rules.damage import Attack
from tests.browser.test_party import open_page
from tests.helpers import card, context_for, page_width, screenshot, settled

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

THUMB = 44  # px: a touch target a finger hits (WCAG 2.5.5, Apple's and Google's guides)


def test_the_undo_button_stays_one_line_naming_ten_characters(browser: Browser, server: str, demo: Campaign):
    guards = actions.add_characters(demo, actions.Sheet("Guardia del puente levadizo", 5), 10, by=demo.gm).characters
    actions.remove_characters(demo, guards, by=demo.gm)
    table = f"{server}/campaigns/{demo.pk}/"
    long_name = "Hermano Tomás de la Orden del Alba Gris, Custodio de los Siete Sellos del Monasterio del Norte"
    for phone, undo in ((False, "Retirados de la campaña: 10 personajes"), (True, f"Hoja de {long_name} editada")):
        if phone:  # an entry whose title is long by itself: cut on one line, the whole of it in the title
            tomas = Character.objects.get(campaign=demo, name="Hermano Tomás")
            actions.edit_character(demo, tomas, actions.Sheet(long_name, tomas.constitution), by=demo.gm)
        context = context_for(browser, server, "narrador", phone=phone)
        try:
            gm = open_page(context, table)
            button = gm.locator("#undo-submit")
            expect(button).to_have_attribute("title", f"Deshacer: {undo}")
            expect(button).to_have_accessible_name(f"Deshacer: {undo}")
            box, aside = button.bounding_box(), gm.locator("#undo-form").bounding_box()
            assert box is not None and aside is not None
            assert box["height"] <= 48, box  # one line, as the button with a short entry
            assert box["x"] + box["width"] <= aside["x"] + aside["width"] + 0.5  # inside its column
            wide = gm.evaluate(
                "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 375)"
                ".filter(e => !e.children.length).map(e => e.tagName + ': ' + e.textContent.slice(0, 30))"
            )
            width = 375 if phone else 1280  # a phone's browser would zoom out to fit what overflows: said in px
            assert page_width(gm) <= width, wide
            button.scroll_into_view_if_needed()
            screenshot(gm, f"undo-button-ten-names-{'375' if phone else '1280'}")
            assert gm.errors == []
        finally:
            context.close()


def test_older_events_are_a_target_a_thumb_hits(browser: Browser, server: str, demo: Campaign):
    aldara = Character.objects.get(campaign=demo, name="Aldara")
    for _ in range(45):  # more than the table's page of the log
        actions.apply_damage(demo, [aldara], Attack(amount=0), by=demo.gm)
    context = context_for(browser, server, "narrador", phone=True)
    try:
        gm = open_page(context, f"{server}/campaigns/{demo.pk}/")
        older = gm.get_by_role("button", name="Sucesos anteriores")
        older.scroll_into_view_if_needed()
        box = older.bounding_box()
        assert box is not None and box["height"] >= THUMB, box
        older.tap()
        expect(gm.locator("aside.log")).to_contain_text("Nuevo personaje: Aldara")
        assert gm.errors == []
    finally:
        context.close()


@pytest.mark.parametrize("number", ["٣", "-1", "1" * 100_000])
def test_a_garbage_session_number_starts_nothing(browser: Browser, server: str, demo: Campaign, number: str):
    context = context_for(browser, server, "narrador")
    try:
        gm = open_page(context, f"{server}/campaigns/{demo.pk}/")
        expect(gm.locator("body[data-live]")).to_have_count(1)  # the stream's first message drawn (it redraws it)
        gm.locator("#session-form input[name=number]").evaluate("(field, value) => field.value = value", number)
        gm.get_by_role("button", name="Empezar la sesión 1").click()
        expect(gm.locator("#said")).to_contain_text("Ese número de sesión no vale")
        expect(gm.get_by_role("button", name="Empezar la sesión 1")).to_be_visible()
        assert not GameSession.objects.filter(campaign=demo).exists()
        if number == "٣":
            screenshot(gm, "session-number-refused")
        assert gm.errors == []
    finally:
        context.close()


def test_a_sessions_blows_at_one_second_chart_as_steps(browser: Browser, server: str, demo: Campaign):
    table = f"{server}/campaigns/{demo.pk}/"
    context = context_for(browser, server, "narrador")
    try:
        gm = open_page(context, table)
        gm.get_by_role("button", name="Empezar la sesión 1").click()
        expect(gm.get_by_role("button", name="Terminar la sesión")).to_be_visible()
        box = card(gm, "Aldara").locator("[data-quick-damage]")
        pg = Character.objects.get(campaign=demo, name="Aldara").pg
        for amount in ("5", "7", "3"):  # one fight: no campaign time passes
            box.fill(amount)
            box.press("Enter")
            settled(gm)
        expect(card(gm, "Aldara").locator(".pg-value")).to_have_text(str(pg - 15))
        gm.get_by_role("button", name="+1 hora").click()  # then an hour's rest
        expect(gm.locator("aside.log")).to_contain_text("Pasa el tiempo: 1 h")
        gm.get_by_role("button", name="Terminar la sesión").click()
        expect(gm.get_by_role("button", name="Empezar la sesión 2")).to_be_visible()

        gm.goto(f"{table}sessions/1/")
        aldara = Character.objects.get(campaign=demo, name="Aldara")
        chart = gm.locator(f"#timeline-{aldara.pk}")
        path = chart.locator(".pg-line").get_attribute("d") or ""
        across = {float(x) for x in re.findall(r"H([0-9.]+)", path)}
        assert len(across) >= 4, path  # three blows, three steps (not all at the chart's left edge), then the hour
        blows = [marker.bounding_box() for marker in chart.locator(".timeline-chart circle.marker.attack").all()]
        assert len({box["x"] for box in blows if box}) == 3  # each blow's marker on its own step
        chart.scroll_into_view_if_needed()
        screenshot(gm, "session-chart-one-second")
        assert gm.errors == []
    finally:
        context.close()
