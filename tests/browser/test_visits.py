"""Issue 25, part 2, in real browsers on a real ASGI server: "Desde tu última visita". Ana opens her page on a phone
and reads what happened to Aldara while she was away (and a word for Borin), short; a reload keeps it; "Entendido"
puts it away for good. What she watched live is not news the next time. The GM's table at 1280 px offers the same.
In Spanish and in English, nothing scrolling sideways on the phone; screenshots in test-artifacts/."""

import time

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Browser, BrowserContext, Page, expect

from campaigns.models import Campaign, Event, Membership, Role, Visit
from characters.models import Character
from rules import actions
from rules.damage import Attack
from tests.helpers import card, context_for, screenshot, settled, watch_errors

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DAY = 86400


def open_page(context: BrowserContext, url: str) -> Page:
    page = watch_errors(context.new_page())
    page.goto(url)
    return page


# How long the server may take to notice a closed tab's stream: under a full parallel suite its event loop is busy, and
# 0.5 s once let a change reach a closed tab's stream (then no news at the next visit).
STREAM_NOTICED_SECONDS = 1.5


def close(page: Page, username: str, campaign: Campaign) -> None:
    """Close the tab, and wait until its live stream's end has marked what it showed as seen (play.live.streams)."""
    assert page.errors == []
    page.close()
    latest = Event.objects.filter(campaign=campaign).latest("id").pk
    expect_mark(username, campaign, latest)
    # The server notices a closed stream within moments (real time); a change sent before it did counts as shown, as
    # it would for a tab closed the instant a change arrived. The tests' changes come after.
    time.sleep(STREAM_NOTICED_SECONDS)


def expect_mark(username: str, campaign: Campaign, event: int) -> None:
    for _ in range(100):  # real time, not campaign time: the server notices the closed stream within moments
        if Visit.objects.filter(user__username=username, campaign=campaign, seen__gte=event).exists():
            return
        time.sleep(0.1)
    raise AssertionError(f"{username}'s mark never reached event {event}")


def co_gm_of(campaign: Campaign) -> User:
    """A co-GM of the campaign (a membership with the role "gm"), whose doings are news to its owner."""
    user = User.objects.create_user("segunda", password="x")
    Membership.objects.create(campaign=campaign, user=user, role=Role.GM)
    return user


def fits(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "the page scrolls sideways"


def test_a_player_on_a_phone_reads_what_happened_since_and_dismisses_it(browser: Browser, server: str, demo):
    url = f"{server}/campaigns/{demo.pk}/"
    gm_context = context_for(browser, server, "narrador")
    ana_context = context_for(browser, server, "ana", phone=True)
    try:
        # First visits: nothing to tell, no box at all.
        gm = open_page(gm_context, url)
        ana = open_page(ana_context, url)
        expect(gm.locator("#since-visit")).to_have_count(0)
        expect(ana.locator("#since-visit")).to_have_count(0)

        # Watched live: the GM hits Aldara while Ana's page is open; she sees it happen, so it is no news later.
        box = card(gm, "Aldara").locator("[data-quick-damage]")
        pg = Character.objects.get(name="Aldara").pg
        box.fill("4")
        box.press("Enter")
        expect(card(ana, "Aldara").locator(".pg-value")).to_have_text(str(pg - 4))
        settled(gm)
        close(ana, "ana", demo)
        ana = open_page(ana_context, url)
        expect(ana.locator("#since-visit")).to_have_count(0)
        close(ana, "ana", demo)

        # Between sessions, Ana away: two days pass, then the GM hits Aldara, and Borin down to 5 PG, at the table.
        close(gm, "narrador", demo)
        co_gm = co_gm_of(demo)
        actions.advance_clock(demo, 2 * DAY, by=co_gm)  # the co-GM did it, this table closed
        gm = open_page(gm_context, url)  # the table tells the GM of the time passed; read, put away
        expect(gm.locator("#since-visit")).to_contain_text("2 días")
        gm.get_by_role("button", name="Entendido").click()
        expect(gm.locator("#since-visit")).to_have_count(0)
        box = card(gm, "Aldara").locator("[data-quick-damage]")
        box.fill("6")
        box.press("Enter")
        settled(gm)
        box = card(gm, "Borin").locator("[data-quick-damage]")
        box.fill(str(Character.objects.get(name="Borin").pg - 5))
        box.press("Enter")
        expect(card(gm, "Borin").locator(".pg-value")).to_have_text("5")
        close(gm, "narrador", demo)

        ana = open_page(ana_context, url)
        panel = ana.locator("#since-visit")
        expect(panel).to_contain_text("Desde tu última visita")
        expect(panel).to_contain_text("Tiempo pasado en la campaña: 2 días.")
        expect(panel.locator(".stretch-character").first.locator("h3")).to_have_text("Aldara")
        expect(panel).to_contain_text("1 herida de Ataque físico directo: 6 PG")
        borin = panel.locator(".stretch-character", has_text="Borin")
        expect(borin).to_contain_text("→ Grave.")
        expect(borin).not_to_contain_text("PG")  # a word, never a number
        expect(panel.locator(".stretch-character", has_text="Sibila")).to_contain_text("Herido → Ileso.")  # rested
        fits(ana)
        screenshot(ana, "visits-player-375-es")

        ana.reload()
        expect(ana.locator("#since-visit")).to_contain_text("1 herida de Ataque físico directo: 6 PG")  # it stays
        ana.get_by_role("button", name="Entendido").click()
        expect(ana.locator("#since-visit")).to_have_count(0)
        expect(ana.locator("#characters-title")).to_be_focused()
        other_tab = open_page(ana_context, url)  # another tab, after the dismissal: nothing
        expect(other_tab.locator("#since-visit")).to_have_count(0)
        assert ana.errors == [] and other_tab.errors == []

        # The GM's table offers the same to the GM: what their co-GM did meanwhile.
        actions.apply_damage(demo, [Character.objects.get(name="Sibila")], Attack(amount=5), by=co_gm)
        gm = open_page(gm_context, url)
        panel = gm.locator("#since-visit")
        expect(panel).to_contain_text("Sibila")
        expect(panel).to_contain_text("PG: 60 → 55 de 60.")
        expect(panel).not_to_contain_text("Borin")  # done at this table, seen as it happened: no news
        screenshot(gm, "visits-gm-1280-es")
        gm.get_by_role("button", name="Entendido").click()
        expect(gm.locator("#since-visit")).to_have_count(0)

        # The co-GM hits Sibila while this table is open: shown live, it is no news at a reload, though the new page
        # is drawn before the old page's stream has ended (and marked what it showed).
        actions.apply_damage(demo, [Character.objects.get(name="Sibila")], Attack(amount=1), by=co_gm)
        expect(card(gm, "Sibila").locator(".pg-value")).to_have_text("54")
        gm.reload()
        expect(card(gm, "Sibila").locator(".pg-value")).to_have_text("54")
        expect(gm.locator("#since-visit")).to_have_count(0)
        assert gm.errors == []
    finally:
        gm_context.close()
        ana_context.close()


def test_in_english_on_a_phone_and_at_the_table(browser: Browser, server: str, demo):
    url = f"{server}/campaigns/{demo.pk}/"
    gm_context = context_for(browser, server, "narrador", locale="en-US")
    ana_context = context_for(browser, server, "ana", locale="en-US", phone=True)
    try:
        for context, username in ((gm_context, "narrador"), (ana_context, "ana")):
            close(open_page(context, url), username, demo)  # first visits
        aldara = Character.objects.get(name="Aldara")
        co_gm = co_gm_of(demo)  # what the GM did themselves is no news to them: their co-GM plays meanwhile
        actions.apply_damage(demo, [aldara], Attack(amount=3), by=co_gm)
        actions.advance_clock(demo, 3 * 3600, by=co_gm)

        ana = open_page(ana_context, url)
        panel = ana.locator("#since-visit")
        expect(panel).to_contain_text("Since your last visit")
        expect(panel).to_contain_text("Campaign time passed: 3 h.")
        expect(panel).to_contain_text("1 wound of Direct physical attack: 3 HP")
        expect(ana.get_by_role("button", name="Got it")).to_be_visible()
        fits(ana)
        screenshot(ana, "visits-player-375-en")

        gm = open_page(gm_context, url)
        expect(gm.locator("#since-visit")).to_contain_text("Aldara")
        screenshot(gm, "visits-gm-1280-en")
        gm.get_by_role("button", name="Got it").click()
        expect(gm.locator("#since-visit")).to_have_count(0)
        assert ana.errors == [] and gm.errors == []
    finally:
        gm_context.close()
        ana_context.close()
