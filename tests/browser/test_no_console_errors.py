"""No page logs a console error or breaks the Content Security Policy: every page, in Spanish and English, on a
desktop and on a phone, with the GM's table worked through its forms and live updates arriving from a real ASGI server.

The CSP is strict (config.settings SECURE_CSP: no inline script or style), so anything that injects a <style> or a
style attribute (a library, our own script, a debug helper) shows up here as a `securitypolicyviolation` event, caught
by a listener installed before the page's own scripts run, and as a console error (tests.helpers.watch_errors).
Assertions are about errors and visible text: the live regions' markup is not this test's business.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import translation
from playwright.sync_api import Browser, Page, expect

from campaigns.clock import format_clock
from campaigns.models import Campaign, Invitation
from characters.models import Character
from rules import actions
from rules.damage import Attack
from tests.helpers import card, opened, plague, settled, sign_in, watch_errors

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Installed in every document before its own scripts: each CSP violation, with what and where, for the assertions.
WATCH_CSP = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push([event.violatedDirective, event.blockedURI, event.sample,
    `${event.sourceFile}:${event.lineNumber}:${event.columnNumber}`].join(" | "));
});
"""

DEVICES: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1280, "height": 900}},
    "phone": {
        "viewport": {"width": 375, "height": 740},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 2,
    },
}
LOCALES = {"es": "es-ES", "en": "en-US"}


def words(language: str, msgid: str, **values: str) -> str:
    """What the page says in this language for one of our (Spanish) message ids, as the catalogue translates it."""
    with translation.override(language):
        text = translation.gettext(msgid)
    return text % values if values else text


@contextmanager
def browsing(browser: Browser, base: str, user: str | None, device: str, language: str) -> Iterator[Page]:
    """A fresh browser context for this visitor (None: nobody signed in) that watches for CSP violations and console
    errors; the last page it showed must have none either."""
    context = browser.new_context(locale=LOCALES[language], **DEVICES[device])
    context.add_init_script(WATCH_CSP)
    try:
        if user is not None:
            sign_in(context, base, user)
        page = watch_errors(context.new_page())
        yield page
        expect_clean(page)
    finally:
        context.close()


def expect_clean(page: Page, where: str = "") -> None:
    """No CSP violation in the document shown now, and no console error or uncaught exception since the last check."""
    where = where or page.url
    violations = page.evaluate("window.__cspViolations || []")
    assert violations == [], f"CSP violations on {where}: {violations}"
    assert page.errors == [], f"console errors on {where}: {page.errors}"


def visit(page: Page, url: str, language: str, heading: str | None, text: str | None = None) -> None:
    """Open a page, see that it is in the language asked for and shows its heading (or text), and that it is clean."""
    page.goto(url)
    settled(page)
    expect(page.locator("html")).to_have_attribute("lang", language)
    if heading is not None:
        expect(page.get_by_role("heading", name=heading, exact=True).first).to_be_visible()
    if text is not None:
        expect(page.get_by_text(text).first).to_be_visible()
    if page.locator("header.topbar").count():  # our pages (not the admin's): the rules link, in the same language
        expect(
            page.locator("header.topbar").get_by_role("link", name=words(language, "Reglas"), exact=True)
        ).to_be_visible()
    page.wait_for_load_state("load")  # the favicon and every subresource asked for
    expect_clean(page)


@pytest.mark.parametrize("language", LOCALES)
@pytest.mark.parametrize("device", DEVICES)
def test_every_page_is_clean(browser: Browser, live_server, demo: Campaign, device: str, language: str):
    base, pk = live_server.url, demo.pk
    aldara = Character.objects.get(name="Aldara")
    token = Invitation.objects.pending().get(character__name="Sibila").token
    say = lambda msgid, **values: words(language, msgid, **values)  # noqa: E731
    actions.start_session(demo, by=demo.gm)  # a game session played and its recap shared (issue 25)
    actions.advance_clock(demo, 3600, by=demo.gm)
    actions.end_session(demo, by=demo.gm)
    actions.share_recap(demo, 1, by=demo.gm)
    recap = say("Resumen de la sesión %(number)s", number="1")

    with browsing(browser, base, None, device, language) as page:
        visit(page, f"{base}/accounts/login/", language, say("Iniciar sesión"))
        visit(page, f"{base}/accounts/signup/", language, say("Crear una cuenta"))
        visit(page, f"{base}/rules/", language, say("Las reglas, tal como las aplica la aplicación"))
        # An invitation opened before signing in: the login page says which campaign and character it is for.
        visit(page, f"{base}/invite/{token}/", language, say("Iniciar sesión"))
        expect(page.get_by_text("Sibila").first).to_be_visible()

    with browsing(browser, base, "narrador", device, language) as page:
        visit(page, f"{base}/", language, say("Mis campañas"))
        visit(page, f"{base}/campaigns/{pk}/", language, demo.name)
        expect(page.get_by_text(say("Reloj de campaña")).first).to_be_visible()
        visit(page, f"{base}/campaigns/{pk}/characters/{aldara.pk}/", language, "Aldara")
        visit(page, f"{base}/campaigns/{pk}/diseases/", language, say("Enfermedades"))
        visit(page, f"{base}/campaigns/{pk}/sessions/", language, say("Registro por sesiones"))
        visit(page, f"{base}/campaigns/{pk}/sessions/1/", language, recap)
        visit(page, f"{base}/campaigns/{pk}/diseases/new/", language, say("Nueva enfermedad"))
        visit(page, f"{base}/campaigns/{pk}/characters/new/", language, say("Nuevo personaje"))
        edit = say("Editar a %(name)s", name="Aldara")
        visit(page, f"{base}/campaigns/{pk}/characters/{aldara.pk}/edit/", language, edit)
        retire = say("¿Retirar a %(name)s de la campaña?", name="Aldara")
        visit(page, f"{base}/campaigns/{pk}/characters/{aldara.pk}/delete/", language, retire)
        visit(page, f"{base}/campaigns/new/", language, say("Nueva campaña"))
        visit(page, f"{base}/campaigns/import/", language, say("Importar una campaña"))
        delete = say("¿Borrar la campaña «%(name)s»?", name=demo.name)
        visit(page, f"{base}/campaigns/{pk}/delete/", language, delete)

    with browsing(browser, base, "ana", device, language) as page:
        visit(page, f"{base}/", language, say("Mis campañas"))
        visit(page, f"{base}/campaigns/{pk}/", language, demo.name)
        expect(page.get_by_role("heading", name=say("Tus personajes"))).to_be_visible()
        visit(page, f"{base}/campaigns/{pk}/characters/{aldara.pk}/", language, "Aldara")
        expect(page.get_by_text(say("PG en el tiempo")).first).to_be_visible()
        visit(page, f"{base}/campaigns/{pk}/sessions/1/", language, recap)

    with browsing(browser, base, "bruno", device, language) as page:
        visit(page, f"{base}/invite/{token}/", language, say("Invitación"))
        expect(page.get_by_role("button", name=say("Aceptar y jugar"))).to_be_visible()

    with browsing(browser, base, "admin", device, language) as page:
        visit(page, f"{base}/admin/", language, say("Site administration"))
        visit(page, f"{base}/admin/campaigns/campaign/", language, None, demo.name)


@pytest.mark.parametrize("device", DEVICES)
def test_the_language_form_switches_pages_cleanly(browser: Browser, live_server, demo: Campaign, device: str):
    base, pk = live_server.url, demo.pk
    with browsing(browser, base, "narrador", device, "es") as page:
        visit(page, f"{base}/campaigns/{pk}/", "es", demo.name)
        page.get_by_label("Idioma").select_option("en")
        page.get_by_role("button", name="Cambiar").click()
        expect(page.locator("html")).to_have_attribute("lang", "en")
        expect(page.get_by_text(words("en", "Reloj de campaña")).first).to_be_visible()
        settled(page)
        expect_clean(page)
        visit(page, f"{base}/rules/", "en", words("en", "Las reglas, tal como las aplica la aplicación"))
        page.get_by_label(words("en", "Idioma")).select_option("es")
        page.get_by_role("button", name=words("en", "Cambiar")).click()
        expect(page.locator("html")).to_have_attribute("lang", "es")
        expect(page.get_by_role("heading", name="Las reglas, tal como las aplica la aplicación")).to_be_visible()
        expect_clean(page)


def action_kinds(page: Page) -> list[str]:
    """The actions the table's cards offer (damage, treat wounds, expose…), each once: the /act/<kind>/ of its link."""
    links = page.eval_on_selector_all("li.card a[hx-get*='/act/']", "links => links.map(a => a.getAttribute('hx-get'))")
    return sorted({re.search(r"/act/(\w+)/", link)[1] for link in links})


def open_and_close(page: Page, link, language: str) -> None:
    """Open an action form from its link, see it, and close it with its Cancel (Escape on a desktop works as well)."""
    link.click()
    settled(page)
    form = page.locator("form.action-form").first
    expect(form).to_be_visible()
    form.get_by_role("link", name=words(language, "Cancelar")).click()
    expect(page.locator("form.action-form"), f"the form from {link} stays open").to_have_count(0)
    settled(page)


def work_the_table(page: Page, campaign: Campaign, language: str) -> None:
    """What a GM does at the table: each action form opened, the kind of damage changed, the invitation's QR code, the
    shortcuts, a quick damage, a time skip previewed and applied, and an undo."""
    say = lambda msgid, **values: words(language, msgid, **values)  # noqa: E731
    kinds = action_kinds(page)
    assert {"damage", "treat_wounds", "expose", "treat_illness", "medicate", "exertion"} <= set(kinds), kinds
    for kind in kinds:
        row = opened(page.locator("li.card").filter(has=page.locator(f"a[hx-get*='/act/{kind}/']")).first)
        open_and_close(page, row.locator(f"a[hx-get*='/act/{kind}/']").first, language)
        expect_clean(page, f"the {kind} form")
    for party_link in (say("Daño a varios"), say("Exponer a una enfermedad")):
        open_and_close(page, page.get_by_role("link", name=party_link, exact=True), language)
        expect_clean(page, party_link)

    # Another kind of damage redraws the form's own fields.
    opened(card(page, "Borin")).get_by_role("link", name=say("Daño"), exact=True).click()
    settled(page)
    page.locator("form.action-form select[name=kind]").select_option("fall")
    settled(page)
    expect(page.locator("form.action-form").get_by_label(say("Altura (m)"))).to_be_visible()
    page.locator("form.action-form").get_by_role("link", name=say("Cancelar")).click()
    settled(page)
    expect_clean(page, "the damage form's kinds")

    opened(page.locator("li.card").filter(has=page.locator("details.qr")).first).locator("details.qr summary").click()
    expect(page.locator("details.qr svg").first).to_be_visible()
    page.get_by_role("button", name=re.compile(re.escape(say("Atajos de teclado")))).click()
    expect(page.get_by_role("heading", name=say("Atajos de teclado"))).to_be_visible()
    expect_clean(page, "the QR code and the shortcuts")

    # A quick damage, as the GM types it on a card.
    borin = Character.objects.get(name="Borin")
    box = card(page, "Borin").get_by_label(say("Daño rápido"))
    box.fill("2")
    box.press("Enter")
    expect(card(page, "Borin")).to_contain_text(f"{borin.pg - 2} / {borin.max_pg}")
    settled(page)
    expect_clean(page, "a quick damage")

    # A time skip seen first, then applied; then undone.
    clock = Campaign.objects.get(pk=campaign.pk).clock
    page.get_by_label(say("Ver antes qué pasará")).check()
    page.locator("button[name=preset]").first.click()
    preview = page.get_by_role("region", name=re.compile("^" + re.escape(say("¿Qué pasará?"))))
    expect(preview).to_be_visible()
    settled(page)
    expect_clean(page, "a time skip's preview")
    preview.get_by_role("button", name=say("Aplicar"), exact=True).click()
    expect(preview).to_have_count(0)
    settled(page)
    assert Campaign.objects.get(pk=campaign.pk).clock > clock
    expect_clean(page, "a time skip applied")
    page.get_by_role("button", name=re.compile("^" + re.escape(say("Deshacer: %(what)s", what="")))).click()
    with translation.override(language):
        expect(page.get_by_text(format_clock(clock), exact=True).first).to_be_visible()
    settled(page)
    assert Campaign.objects.get(pk=campaign.pk).clock == clock
    expect_clean(page, "an undo")


def worn(campaign: Campaign) -> Campaign:
    """The demo with every action on offer: Borin at 4 PG (exertion checks), Aldara ill with the plague."""
    narrador = get_user_model().objects.get(username="narrador")
    borin, aldara = Character.objects.get(name="Borin"), Character.objects.get(name="Aldara")
    actions.apply_damage(campaign, [borin], Attack(amount=borin.pg - 4), by=narrador)
    actions.expose(campaign, [aldara], plague(), by=narrador, dice_by_character={aldara.pk: 1})
    return Campaign.objects.get(pk=campaign.pk)


@pytest.mark.parametrize("language", LOCALES)
@pytest.mark.parametrize("device", DEVICES)
def test_working_the_gms_table_is_clean(browser: Browser, live_server, demo: Campaign, device: str, language: str):
    demo = worn(demo)
    with browsing(browser, live_server.url, "narrador", device, language) as page:
        visit(page, f"{live_server.url}/campaigns/{demo.pk}/", language, demo.name)
        work_the_table(page, demo, language)


def test_live_updates_on_the_table_and_a_players_page_are_clean(browser: Browser, demo: Campaign, server: str):
    """The only server that streams: the GM's table (desktop, Spanish) and Ana's page (phone, English) open at once,
    while changes are made through rules.actions; both show them and neither logs an error."""
    narrador = get_user_model().objects.get(username="narrador")
    demo = worn(demo)
    aldara = Character.objects.get(name="Aldara")
    with (
        browsing(browser, server, "narrador", "desktop", "es") as gm,
        browsing(browser, server, "ana", "phone", "en") as player,
    ):
        gm.goto(f"{server}/campaigns/{demo.pk}/")
        player.goto(f"{server}/campaigns/{demo.pk}/")
        settled(gm)
        settled(player)
        expect(player.get_by_role("heading", name=words("en", "Tus personajes"))).to_be_visible()
        for page in (gm, player):
            page.evaluate("window.stillTheSamePage = true")

        actions.apply_damage(demo, [aldara], Attack(amount=3), by=narrador)
        now = f"{aldara.pg - 3} / {aldara.max_pg}"
        expect(card(gm, "Aldara")).to_contain_text(now)
        expect(player.locator("li.card").filter(has_text="Aldara")).to_contain_text(now)

        actions.add_character(demo, actions.Sheet("Eira", 9), by=narrador)
        expect(card(gm, "Eira")).to_have_count(1)
        actions.advance_clock(demo, 8 * 3600, by=narrador)
        actions.undo(demo, by=narrador)
        actions.undo(demo, by=narrador)
        expect(card(gm, "Eira")).to_have_count(0)

        work_the_table(gm, demo, "es")  # its own answers and its stream, both on the same table
        expect(player.locator("li.card").filter(has_text="Aldara")).to_contain_text(now)
        for page in (gm, player):
            settled(page)
            assert page.evaluate("window.stillTheSamePage") is True
            expect_clean(page)


def test_the_watch_catches_an_inline_style(browser: Browser, live_server):
    # What this file looks for: the violation a script makes by setting a style attribute, as the one walk logged.
    with (
        pytest.raises(AssertionError, match="style-src"),
        browsing(browser, live_server.url, None, "desktop", "es") as page,
    ):
        page.goto(f"{live_server.url}/rules/")
        page.evaluate("document.body.setAttribute('style', 'color: red')")
        expect_clean(page)
    assert any("Applying inline style violates" in error for error in page.errors), page.errors


def test_a_failed_request_under_debug_leaves_the_table_and_says_so(browser: Browser, demo: Campaign, server: str):
    """Under DEBUG (the ASGI test server, `make run`), a failed htmx request used to be answered by django-htmx's
    debug helper, which replaced the whole table with Django's error page and its inline <style>, which the CSP
    blocks. Now the table stays and its alert line says what happened, as in production."""
    with browsing(browser, server, "narrador", "desktop", "es") as gm:
        gm.goto(f"{server}/campaigns/{demo.pk}/")
        settled(gm)
        gm.evaluate("htmx.ajax('GET', '/campaigns/999999/act/damage/', {source: 'main', target: 'main'})")
        # One line says so (the general one, or the page's own for something gone); which one is the page's choice.
        expect(gm.get_by_role("alert").filter(visible=True)).to_have_count(1)
        expect(gm.get_by_role("heading", name=demo.name)).to_be_visible()
        assert gm.evaluate("window.__cspViolations") == []
        # What the browser and htmx log for the failed request itself; nothing else.
        assert all("404" in error for error in gm.errors), gm.errors
        gm.errors.clear()
