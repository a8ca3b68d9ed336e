"""Undo takes the rights of what it undoes (issue 48), as a co-GM meets it in a real browser on a real ASGI server:
when the latest change is one only the owner may undo (the owner removed another co-GM), the co-GM's open table
hides "Deshacer" at once, live, and says why; `u` presses nothing; the owner's table offers it. The next change of
the table's brings the co-GM's button back."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, expect

from campaigns.models import Campaign, Event, Membership, Role
from rules import actions
from rules.damage import Attack
from tests.browser.test_party import open_page
from tests.helpers import context_for, on_a_thread, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_co_gms_table_does_not_offer_the_undo_of_an_owners_decision(browser: Browser, server: str, demo: Campaign):
    table = f"{server}/campaigns/{demo.pk}/"
    users = get_user_model().objects
    carla = users.create_user("carla", password="no-se-usa")
    dario = users.create_user("dario", password="no-se-usa")
    for co_gm in (carla, dario):
        Membership.objects.create(campaign=demo, user=co_gm, role=Role.GM)
    owner_context = context_for(browser, server, "narrador")
    co_gm_context = context_for(browser, server, "carla")
    try:
        owner, co_gm = open_page(owner_context, table), open_page(co_gm_context, table)
        for page in (owner, co_gm):
            expect(page.locator("body[data-live]")).to_have_count(1)

        # The owner removes dario: carla's open table hears it, and offers no undo of it.
        on_a_thread(lambda: actions.remove_co_gm(demo, dario.pk, by=demo.gm))
        expect(co_gm.locator("aside.log .entry").first).to_contain_text("dario ya no es co-narrador")
        expect(co_gm.locator("#undo-submit")).to_be_hidden()
        expect(co_gm.locator("#undo-owner-only")).to_be_visible()
        expect(co_gm.locator("#undo-owner-only")).to_contain_text("solo puede deshacerlo quien creó la campaña")
        screenshot(co_gm, "rights-co-gm-undo-owner-only")
        co_gm.locator("#characters-title").focus()
        co_gm.keyboard.press("u")
        co_gm.wait_for_timeout(300)  # a request it would send has time to land: none is sent
        removal = Event.objects.filter(campaign=demo, action="co_gm_removed").get()
        assert not removal.undone
        expect(co_gm.locator("aside.log .entry.undone")).to_have_count(0)

        owner.reload()
        expect(owner.get_by_role("button", name="Deshacer: dario ya no es co-narrador")).to_be_visible()
        expect(owner.locator("#undo-owner-only")).to_be_hidden()

        # A change of the table's own: carla may undo that, and her button is back.
        borin = demo.characters.get(name="Borin")
        on_a_thread(lambda: actions.apply_damage(demo, [borin], Attack(amount=2), by=demo.gm))
        expect(co_gm.locator("#undo-submit")).to_be_visible()
        expect(co_gm.locator("#undo-owner-only")).to_have_count(0)
    finally:
        owner_context.close()
        co_gm_context.close()
