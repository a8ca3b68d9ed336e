"""Issue 48, items 12 and 13, as the GM meets them in a real browser on a real ASGI server: "Añadir varios" after
"Alto 999999999" numbers on without ever repeating a name; a template named with a zero-width space is the template
of the name it looks like; a second click on a template's "Borrar" (from a tab that still shows it) is told on the
page, never an error page. Screenshots in test-artifacts/."""

import pytest
from playwright.sync_api import Browser, expect

from campaigns.models import Campaign
from characters.models import Character, NpcTemplate
from rules import actions
from tests.browser.test_party import open_page
from tests.helpers import card, context_for, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_numbers_past_nine_digits_and_templates_named_alike(browser: Browser, server: str, demo: Campaign):
    table = f"{server}/campaigns/{demo.pk}/"
    actions.add_character(demo, actions.Sheet("Alto 999999999", 5), by=demo.gm)
    context = context_for(browser, server, "narrador")
    try:
        gm = open_page(context, table)
        for _ in range(2):  # "Alto" × 2, twice
            gm.get_by_role("link", name="Añadir varios").click()
            gm.get_by_label("Nombre").fill("Alto")
            gm.get_by_label("Cuántos").fill("2")
            gm.get_by_label("Constitución (CON)").fill("5")
            gm.get_by_label("Cuántos").press("Enter")
            expect(gm).to_have_url(table)
        for number in range(1000000000, 1000000004):
            expect(card(gm, f"Alto {number}")).to_have_count(1)
        names = list(Character.objects.filter(campaign=demo, name__startswith="Alto").values_list("name", flat=True))
        assert len(names) == len(set(names)) == 5

        # A template "Lobo", then one typed with a zero-width space inside: the same template, its values replaced.
        add_several = f"{table}characters/several/"
        gm.goto(add_several)
        gm.get_by_label("Nombre").fill("Lobo")
        gm.get_by_label("Cuántos").fill("3")
        gm.get_by_label("Constitución (CON)").fill("3")
        gm.get_by_role("button", name="Guardar como plantilla").click()
        expect(gm.locator("#id_template option")).to_have_text(["Lobo"])
        gm.goto(add_several)
        gm.get_by_label("Nombre").fill("Lo\u200bbo")
        gm.get_by_label("Cuántos").fill("5")
        gm.get_by_label("Constitución (CON)").fill("3")
        gm.get_by_role("button", name="Guardar como plantilla").click()
        expect(gm.locator("#id_template option")).to_have_text(["Lobo"])
        expect(gm.get_by_label("Cuántos")).to_have_value("5")  # the template's page, with its new values
        assert list(NpcTemplate.objects.filter(campaign=demo).values_list("name", "count")) == [("Lobo", 5)]

        # Two tabs show the template; "Borrar" in one, then in the other: told, no error page.
        other = open_page(context, gm.url)
        gm.get_by_role("button", name="Borrar la plantilla «Lobo»").click()
        expect(gm.locator("body")).to_contain_text("Plantilla «Lobo» borrada.")
        other.get_by_role("button", name="Borrar la plantilla «Lobo»").click()
        expect(other.locator("body")).to_contain_text("Esa plantilla ya no existe.")
        expect(other.get_by_role("heading", name="Añadir varios personajes")).to_be_visible()
        screenshot(other, "npc-template-deleted-twice")
        assert gm.errors == [] and other.errors == []
    finally:
        context.close()
