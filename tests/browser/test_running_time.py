"""Time between sessions in a real browser (issue 52): the GM turns it on from the keyboard in the table's settings,
both the table and a player's phone say when the next tick falls, the GM reads its preview, bad input is refused in
words, and a tick made by a real task queue worker reaches the open phone live — its clock, its PG, its next tick —
as a reload would draw it."""

from datetime import timedelta

import pytest
from playwright.sync_api import Browser, expect

from campaigns.models import Campaign, Event
from characters.models import Character
from rules.events import EventKind
from rules.tasks import due_ticks
from tests.helpers import context_for, expect_live_equals_reload, screenshot, settings_of, settled, watch_errors
from tests.servers import task_worker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_gm_sets_it_and_a_workers_tick_reaches_the_phone(browser: Browser, server: str, demo: Campaign):
    gm_context = context_for(browser, server, "narrador")
    phone_context = context_for(browser, server, "ana", phone=True)
    table = watch_errors(gm_context.new_page())
    phone = watch_errors(phone_context.new_page())
    url = f"{server}/campaigns/{demo.pk}/"
    table.goto(url)
    phone.goto(url)
    expect(table.locator("#running-time")).to_contain_text("El tiempo no corre entre sesiones")
    expect(phone.locator("#running-time")).to_have_text("")

    # From the line under the clock to the control, then all from the keyboard.
    table.locator("#running-time").get_by_role("link", name="Que corra solo").click()
    runs = table.get_by_label("El tiempo corre entre sesiones")
    runs.focus()
    table.keyboard.press("Space")
    rate = table.get_by_label("Cada día real pasa")
    rate.fill("²")
    rate.press("Enter")
    expect(table.locator("#running-time-control")).to_contain_text("No se entiende la duración")
    assert not Campaign.objects.get(pk=demo.pk).runs
    rate.fill("12 horas por día")
    table.get_by_label("a las").select_option("20")
    rate.press("Enter")
    line = table.locator("#running-time")
    expect(line).to_contain_text("Próximo paso del tiempo")
    expect(line).to_contain_text(", 20:00")
    expect(phone.locator("#running-time")).to_contain_text("Próximo paso del tiempo")  # live, on the phone
    expect(table.locator("#log-entries")).to_contain_text("El tiempo corre entre sesiones: 12 h por día, a las 20:00")
    campaign = Campaign.objects.get(pk=demo.pk)
    assert campaign.runs and campaign.run_rate == 12 * 3600 and campaign.run_hour == 20

    # The preview of the next tick, as a time skip's, without "Aplicar": the server applies it.
    line.get_by_role("link", name="Ver antes qué pasará").click()
    preview = table.locator("#advance-preview")
    expect(preview).to_contain_text("El próximo paso del tiempo")
    expect(preview).to_contain_text("Aldara")
    expect(preview.get_by_role("button", name="Aplicar")).to_have_count(0)
    screenshot(table, "running-time-preview")
    table.keyboard.press("Escape")
    expect(preview).to_be_empty()

    # A real worker makes the tick, its moment injected: the phone follows without a reload.
    clock_before = phone.locator("#clock").inner_text()
    with task_worker():
        due_ticks.defer(timestamp=int((campaign.run_next + timedelta(minutes=1)).timestamp()))
        expect(phone.locator("#clock")).not_to_have_text(clock_before, timeout=15_000)
    [tick] = Event.objects.filter(campaign=demo, action=EventKind.ADVANCE, details__has_key="between")
    assert tick.actor is None and tick.clock_after > tick.clock_before
    expect(table.locator("#log-entries")).to_contain_text("(entre sesiones)")
    settled(phone)
    screenshot(phone, "running-time-phone")
    expect_live_equals_reload(phone, phone_context.new_page(), ["#clock", "#running-time", f"#card-{aldara(demo)}"])
    expect_live_equals_reload(table, gm_context.new_page(), ["#clock", "#running-time", "#running-time-control"])
    gm_context.close()
    phone_context.close()


def aldara(campaign: Campaign) -> int:
    return Character.objects.get(campaign=campaign, name="Aldara").pk


def test_a_character_marked_not_resting_says_so_on_its_row(browser: Browser, server: str, demo: Campaign):
    context = context_for(browser, server, "narrador")
    page = watch_errors(context.new_page())
    page.goto(f"{server}/campaigns/{demo.pk}/characters/{aldara(demo)}/edit/")
    box = page.get_by_label("descansa entre sesiones")
    expect(box).to_be_checked()
    box.uncheck()
    page.get_by_role("button", name="Guardar").click()
    page.wait_for_url(f"{server}/campaigns/{demo.pk}/")
    settings_of(page)
    row = page.locator(f"#card-{aldara(demo)}")
    expect(row).to_contain_text("no descansa")
    assert not Character.objects.get(pk=aldara(demo)).rests_between_sessions
    context.close()
