"""Issue 25, part 5: a phone sheet that works without signal. A player's sheet, as loaded and as the live stream
redrew it, opens again with the phone offline, marked "sin conexión · visto a las …" (the last time it was current,
in the phone's time zone and language), and takes no action; back online it shows what the GM did meanwhile. A logout
— or a session that ended, then the login page — leaves nothing of it on the phone."""

import contextlib
import re
import time
from dataclasses import replace
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth import get_user_model
from django.utils import translation
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import Error as PlaywrightError

from campaigns.models import Campaign, Invitation
from characters.models import Character
from rules import actions
from rules.damage import Attack
from rules.models import CheckKind
from tests.helpers import screenshot, sign_in, watch_errors

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LOCALES = {"es": "es-ES", "en": "en-US"}
ZONE = "America/Mexico_City"  # the phone's, not the server's (UTC): the time shown is the phone's own


def words(language: str, msgid: str) -> str:
    with translation.override(language):
        return translation.gettext(msgid)


def clock_time(milliseconds: int, language: str) -> str:
    """The time as the phone says it (Intl, hour "numeric", minute "2-digit")."""
    seen = datetime.fromtimestamp(milliseconds / 1000, UTC).astimezone(ZoneInfo(ZONE))
    if language == "es":
        return f"{seen.hour}:{seen.minute:02d}"
    return f"{seen.hour % 12 or 12}:{seen.minute:02d} {'AM' if seen.hour < 12 else 'PM'}"


def plain(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\u202f", " ")).strip()


def phone_for(browser: Browser, base: str, username: str, language: str):
    context = browser.new_context(
        locale=LOCALES[language],
        timezone_id=ZONE,
        viewport={"width": 375, "height": 740},
        is_mobile=True,
        has_touch=True,
        device_scale_factor=2,
    )
    sign_in(context, base, username)
    return context


def kept(page: Page, since: int = 0) -> str:
    """Wait until the page has saved a copy of what it shows, at or after the page's moment `since`, and the service
    worker runs; the copy's time."""
    page.wait_for_function("([since]) => +document.body.dataset.offlineSaved >= since", arg=[since])
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    return page.evaluate("document.body.dataset.offlineSaved")


KEPT_COPY = """async () => {
    const copy = await (await caches.open("twelveplus-pages")).match(location.href.split("#")[0]);
    return copy ? copy.text() : "";
}"""


def kept_showing(page: Page, *wanted: str) -> str:
    """Wait until the copy kept on the phone shows everything `wanted` (changes the page has drawn: a save that started
    before one was drawn may end after, so its time alone says nothing), and the service worker runs; its time."""
    deadline = time.monotonic() + 15
    while not all(part in (copy := page.evaluate(KEPT_COPY)) for part in wanted):
        assert time.monotonic() < deadline, f"no copy kept shows all of {wanted!r}"
        page.wait_for_timeout(100)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    seen = re.search(r'data-offline-seen="(\d+)"', copy)
    assert seen is not None
    return seen.group(1)


def no_script_faults(page: Page) -> None:
    """Offline, the browser logs each request it could not send; what must never happen is a script error or a CSP
    violation."""
    assert not [e for e in page.errors if "ERR_INTERNET_DISCONNECTED" not in e and "Failed to load resource" not in e]


@pytest.mark.parametrize("language", ["es", "en"])
def test_the_sheet_opens_offline_as_last_seen_and_catches_up_online(
    browser: Browser, demo: Campaign, language: str, server: str
):
    gm = get_user_model().objects.get(username="narrador")
    borin = Character.objects.get(name="Borin")
    sheet_url = f"/campaigns/{demo.pk}/characters/{borin.pk}/"
    context = phone_for(browser, server, "bruno", language)
    try:
        player = watch_errors(context.new_page())
        player.goto(server + sheet_url)
        expect(player.locator("body[data-live=yes]")).to_have_count(1)
        kept(player)
        pg = player.locator(".pg-value")

        # A change arrives live: the copy kept is the screen as redrawn, with a check the player could answer.
        actions.apply_damage(demo, [borin], Attack(amount=borin.pg - 4), by=gm)
        actions.call_check(demo, [borin], actions.Call(CheckKind.EXERTION), by=gm)
        expect(pg).to_have_text("4")
        die = player.locator(".my-checks input[name=die]")
        expect(player.get_by_role("button", name=words(language, "Anotar mi dado"))).to_be_visible()
        saved = kept_showing(player, '<strong class="pg-value">4</strong>', 'name="die"')  # the wound and the check

        # No signal: the sheet reloads as it was last seen, says so with the time, and takes no action.
        context.set_offline(True)
        response = player.reload()
        assert response is not None and response.from_service_worker
        expect(player.locator("html[data-offline-seen]")).to_have_count(1)
        player.wait_for_load_state()
        csp = response.headers["content-security-policy"]
        assert "default-src 'self'" in csp and "unsafe" not in csp
        note = player.locator("#offline-note")
        expect(note).to_be_visible()
        seen = int(player.evaluate("document.documentElement.dataset.offlineSeen"))
        assert str(seen) == saved
        said = words(language, "sin conexión · visto a las {time}").replace("{time}", clock_time(seen, language))
        assert plain(note.locator(".offline-when").inner_text()) == said
        expect(pg).to_have_text("4")
        expect(player.get_by_role("button", name=words(language, "Anotar mi dado"))).to_be_disabled()
        expect(die).to_be_disabled()
        expect(player.get_by_role("button", name=words(language, "Cerrar sesión"))).to_be_disabled()
        # A link to a page not kept on the phone is refused in words, not followed.
        player.get_by_role("link", name=words(language, "Reglas")).click()
        expect(note.locator(".offline-said")).to_have_text(
            words(language, "Sin conexión: esa página no está guardada en este teléfono.")
        )
        assert player.url == server + sheet_url
        screenshot(player, f"offline-sheet-{language}")

        # Meanwhile the GM goes on; back online, the sheet catches up by itself.
        actions.apply_damage(demo, [borin], Attack(amount=1), by=gm)
        context.set_offline(False)
        expect(pg).to_have_text("3", timeout=15000)
        expect(note).to_be_hidden()
        expect(player.get_by_role("button", name=words(language, "Anotar mi dado"))).to_be_enabled()
        expect(player.locator("body[data-live=yes]")).to_have_count(1)
        screenshot(player, f"offline-sheet-back-{language}")
        no_script_faults(player)
    finally:
        context.close()


@pytest.mark.parametrize("language", ["es", "en"])
def test_a_logout_leaves_nothing_of_the_sheet_on_the_phone(
    browser: Browser, demo: Campaign, language: str, server: str
):
    borin = Character.objects.get(name="Borin")
    sheet_url = f"/campaigns/{demo.pk}/characters/{borin.pk}/"
    context = phone_for(browser, server, "bruno", language)
    try:
        player = watch_errors(context.new_page())
        player.goto(server + sheet_url)
        kept(player)
        assert player.evaluate("caches.open('twelveplus-pages').then((c) => c.keys()).then((k) => k.length)") == 1
        # Installable: Chromium reads the manifest without a fault, and the only thing it finds missing is what a
        # test's throw-away (incognito) profile lacks.
        cdp = context.new_cdp_session(player)
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["errors"] == [] and manifest["url"].startswith(f"{server}/manifest.webmanifest?start=")
        faults = {e["errorId"] for e in cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]}
        assert faults <= {"in-incognito"}, faults

        player.get_by_role("button", name=words(language, "Cerrar sesión")).click()
        player.wait_for_url(re.compile(r".*/accounts/login/.*"))
        expect(player.get_by_role("button", name=words(language, "Entrar"))).to_be_visible()
        player.wait_for_function("caches.keys().then((names) => names.length === 0)")
        player.wait_for_function("navigator.serviceWorker.getRegistrations().then((r) => r.length === 0)")

        context.set_offline(True)
        with pytest.raises(PlaywrightError):
            player.goto(server + sheet_url)
        expect(player.get_by_text("Borin")).to_have_count(0)
    finally:
        context.close()


def test_a_session_ended_without_logout_is_forgotten_at_the_login_page(browser: Browser, demo: Campaign, server: str):
    """Another account must never see what the last one kept: the session went (expired, ended elsewhere), the next
    person meets the login page, and nothing kept before is there for them offline."""
    aldara = Character.objects.get(name="Aldara")
    page_url, sheet_url = f"/campaigns/{demo.pk}/", f"/campaigns/{demo.pk}/characters/{aldara.pk}/"
    context = phone_for(browser, server, "ana", "es")
    try:
        phone = watch_errors(context.new_page())
        phone.goto(server + page_url)
        kept(phone)
        phone.goto(server + sheet_url)
        kept(phone)
        assert phone.evaluate("caches.open('twelveplus-pages').then((c) => c.keys()).then((k) => k.length)") == 2
        # Without signal, one kept page leads to the other: the sheet's link back to the player's page.
        context.set_offline(True)
        phone.reload()
        # The copy (the open page said "sin conexión" too, as soon as the signal went).
        expect(phone.locator("html[data-offline-seen] #offline-note")).to_be_visible()
        phone.wait_for_load_state()
        phone.get_by_role("link", name=f"← {demo.name}").click()
        phone.wait_for_url(server + page_url)
        expect(phone.locator("#offline-note")).to_be_visible()
        expect(phone.get_by_role("heading", name="Tus personajes")).to_be_visible()
        screenshot(phone, "offline-player-page-es")
        context.set_offline(False)
        expect(phone.locator("#offline-note")).to_be_hidden()
        kept(phone)

        context.clear_cookies()  # the session is gone, with no logout
        phone.goto(server + sheet_url)
        phone.wait_for_url(re.compile(r".*/accounts/login/.*"))
        phone.wait_for_function(
            "caches.keys().then((names) => names.filter((n) => n.startsWith('twelveplus-')).length === 0)"
        )
        context.set_offline(True)
        for url in (page_url, sheet_url):
            with pytest.raises(PlaywrightError):
                phone.goto(server + url)
    finally:
        context.close()


def test_an_open_sheet_that_loses_its_signal_says_so_and_catches_up_by_its_stream(
    browser: Browser, demo: Campaign, server: str
):
    """Not only a copy opened offline: a sheet left open when the signal goes says from when it is no longer current,
    and when the signal comes back its stream's first message (the whole screen) makes it current again — no
    reload, nothing for the player to do."""
    gm = get_user_model().objects.get(username="narrador")
    borin = Character.objects.get(name="Borin")
    context = phone_for(browser, server, "bruno", "es")
    try:
        player = watch_errors(context.new_page())
        player.goto(f"{server}/campaigns/{demo.pk}/characters/{borin.pk}/")
        expect(player.locator("body[data-live=yes]")).to_have_count(1)
        kept(player)
        player.evaluate("window.stillTheSamePage = true")
        note = player.locator("#offline-note")
        expect(note).to_be_hidden()

        context.set_offline(True)
        expect(note).to_be_visible()
        seen = int(player.evaluate("document.body.dataset.offlineSaved"))  # its last moment current
        said = words("es", "sin conexión · visto a las {time}").replace("{time}", clock_time(seen, "es"))
        assert plain(note.locator(".offline-when").inner_text()) == said
        actions.apply_damage(demo, [borin], Attack(amount=2), by=gm)
        expect(player.locator(".pg-value")).to_have_text(str(borin.pg))  # not yet: no signal

        context.set_offline(False)
        expect(player.locator(".pg-value")).to_have_text(str(borin.pg - 2), timeout=20000)
        expect(note).to_be_hidden()
        assert player.evaluate("window.stillTheSamePage") is True
        assert int(kept(player, since=seen + 1)) > seen  # current again: its copy follows
        no_script_faults(player)
    finally:
        context.close()


# --- kept copies follow rights (issue 48) -----------------------------------------------------------------------------


KEPT_PATHS = "caches.open('twelveplus-pages').then((c) => c.keys()).then((k) => k.map((r) => new URL(r.url).pathname))"


def kept_paths(page: Page) -> list[str]:
    """The pages the phone keeps a copy of (Cache Storage, where static/js/offline.js saves them)."""
    return sorted(page.evaluate(KEPT_PATHS))


def wait_kept(page: Page, paths: list[str]) -> None:
    """Wait (a few seconds at most) until the phone keeps exactly these pages."""
    script = f"(want) => {KEPT_PATHS}.then((kept) => JSON.stringify(kept.sort()) === JSON.stringify(want))"
    with contextlib.suppress(PlaywrightError):
        page.wait_for_function(script, arg=sorted(paths), timeout=5000)
    assert kept_paths(page) == sorted(paths)


@pytest.mark.parametrize("change", ["removed", "handed", "co-gm-removed"])
def test_a_phone_loses_the_copies_of_what_the_account_lost_the_next_time_it_is_online(
    browser: Browser, demo: Campaign, change: str, server: str
):
    """Issue 48, item 5: a player's page and sheets kept on the phone, then the GM takes the access away — the
    character out of the campaign, handed to another player, or a co-GM removed — while the phone is without signal.
    Back online, it opens some other page of the site (not those), and that is enough: without signal again, none of
    what the account lost opens from a copy. A sheet the account still plays stays, and from it the page that went is
    "not kept"."""
    users = get_user_model().objects
    gm, ana, bruno = users.get(username="narrador"), users.get(username="ana"), users.get(username="bruno")
    borin, sibila, aldara = (Character.objects.get(name=name) for name in ("Borin", "Sibila", "Aldara"))
    page_url = f"/campaigns/{demo.pk}/"
    sheet_of = {c: f"/campaigns/{demo.pk}/characters/{c.pk}/" for c in (borin, sibila, aldara)}
    account, opened, stays = "bruno", [page_url, sheet_of[borin]], []
    if change == "handed":  # Bruno plays Sibila too: he keeps her sheet
        actions.edit_character(demo, sibila, replace(actions.Sheet.of(sibila), player_id=bruno.pk), by=gm)
        opened, stays = [*opened, sheet_of[sibila]], [sheet_of[sibila]]
    if change == "co-gm-removed":  # a co-GM keeps the sheets of the table (the table itself is never kept)
        users.create_user("carla", password="no-se-usa")
        link = actions.create_co_gm_invitation(demo, by=gm).event
        assert link is not None
        actions.claim_invitation(
            Invitation.objects.get(pk=link.details["invitation"]).token, users.get(username="carla")
        )
        account, opened = "carla", [sheet_of[borin], sheet_of[aldara]]
    context = phone_for(browser, server, account, "es")
    try:
        phone = watch_errors(context.new_page())
        for url in opened:
            phone.goto(server + url)
            kept(phone)
        phone.goto(server + "/rules/")  # no kept page open when the change comes: no stream to say it
        assert kept_paths(phone) == sorted(opened)

        context.set_offline(True)
        if change == "removed":
            actions.remove_character(demo, borin, by=gm)
        elif change == "handed":
            actions.edit_character(demo, borin, replace(actions.Sheet.of(borin), player_id=ana.pk), by=gm)
        else:
            actions.remove_co_gm(demo, users.get(username="carla"), by=gm)

        # Online again, another page of the site: the copies of what was lost go. (Bruno's page showed Borin: it
        # goes with him even when Bruno still plays Sibila there.)
        context.set_offline(False)
        phone.goto(server + "/")
        wait_kept(phone, stays)

        context.set_offline(True)
        for url in opened:
            if url in stays:
                continue
            with pytest.raises(PlaywrightError):
                phone.goto(server + url)
        expect(phone.get_by_text("Borin")).to_have_count(0)
        for url in stays:
            response = phone.goto(server + url)
            assert response is not None and response.from_service_worker
            expect(phone.locator("#offline-note")).to_be_visible()
            phone.wait_for_load_state()
            phone.get_by_role("link", name=f"← {demo.name}").click()
            expect(phone.locator("#offline-note .offline-said")).to_have_text(
                words("es", "Sin conexión: esa página no está guardada en este teléfono.")
            )
            assert phone.url == server + url
        no_script_faults(phone)
    finally:
        context.close()
