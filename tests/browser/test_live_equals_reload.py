"""Live equals reload (docs/architecture.md principle 3, issue 10): after every kind of action the GM takes in one tab,
a second GM tab, the GM's open sheet tab and a player's page and sheet on a phone — none of them reloaded — show, region
by region, what a fresh load of the same URL shows. And a stale tab never acts on old choices without saying so."""

from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from campaigns.models import Campaign
from characters.models import Character
from rules import actions
from rules.damage import Attack
from tests.helpers import (
    card,
    expect_live_equals_reload,
    opened,
    page_width,
    screenshot,
    settings_of,
    settled,
    sign_in,
    watch_errors,
    without_live_updates,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GM_TABLE = ["#cards", ".clock", "#resting", "#party-view", "#undo-button", "aside.log ol.entries"]
PLAYER_PAGE = ["#cards", ".clock", "#my-checks", "#party"]
SHEET = [".sheet-state", ".clock", "#sheet-log"]
STALE = "La mesa ha cambiado desde que abriste este formulario: revisa las opciones y vuelve a enviarlo."


def gm_context(browser: Browser, base: str) -> BrowserContext:
    context = browser.new_context(locale="es-ES", viewport={"width": 1280, "height": 900})
    sign_in(context, base, "narrador")
    return context


def phone_context(browser: Browser, base: str, username: str) -> BrowserContext:
    context = browser.new_context(
        locale="es-ES", viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True, device_scale_factor=2
    )
    sign_in(context, base, username)
    return context


def open_page(context: BrowserContext, url: str) -> Page:
    page = watch_errors(context.new_page())
    page.goto(url)
    page.evaluate("window.stillTheSamePage = true")  # gone if anything reloads the page
    return page


@dataclass
class Screens:
    """Every screen that must follow the table live, each with a page of its own context for fresh loads."""

    acting: Page  # tab A: the GM acts here
    watching: list[tuple[Page, list[str]]]  # (a page never reloaded, its regions)
    fresh_gm: Page
    fresh_player: Page
    mismatches: list[str] = field(default_factory=list)

    def assert_clean(self) -> None:
        """No screen reloaded or logged an error, and every one matched a fresh load after every step."""
        for page, _selectors in self.watching:
            assert page.evaluate("window.stillTheSamePage") is True, f"{page.url} reloaded"
        for page in [self.acting, self.fresh_gm, self.fresh_player, *(page for page, _ in self.watching)]:
            assert page.errors == [], page.url
        assert self.mismatches == []

    def fresh_for(self, page: Page) -> Page:
        return self.fresh_gm if page.context == self.fresh_gm.context else self.fresh_player

    def check(self, after: str) -> None:
        """Every watching screen equals a fresh load; what differs is collected, so one run reports every step."""
        for page, selectors in self.watching:
            try:
                expect_live_equals_reload(page, self.fresh_for(page), selectors)
            except AssertionError as error:
                self.mismatches.append(f"after {after}, {page.url}: {error}")
        self.acting.bring_to_front()  # a page in the background gets its animation frames throttled: slow clicks


@pytest.fixture
def screens(browser: Browser, server: str, demo: Campaign) -> Iterator[Screens]:
    aldara = Character.objects.get(name="Aldara")
    table = f"{server}/campaigns/{demo.pk}/"
    sheet = f"{table}characters/{aldara.pk}/"
    gm, player = gm_context(browser, server), phone_context(browser, server, "ana")
    try:
        watching = [
            (open_page(gm, table), GM_TABLE),  # tab B
            (open_page(gm, sheet), SHEET),  # the GM's sheet tab
            (open_page(player, table), PLAYER_PAGE),  # the player's page, on a 375 px phone
            (open_page(player, sheet), SHEET),  # the player's sheet
        ]
        acting = open_page(gm, table)
        fresh_gm = without_live_updates(watch_errors(gm.new_page()))
        fresh_player = without_live_updates(watch_errors(player.new_page()))
        screens = Screens(acting, watching, fresh_gm, fresh_player)
        try:
            yield screens
        finally:
            print("\n".join(screens.mismatches))  # shown if the test stopped before its last assertion
    finally:
        gm.close()
        player.close()


# --- tab A: the GM's actions, through the page ----------------------------------------------------------------------


def open_card_form(page: Page, name: str, link: str) -> Locator:
    opener = opened(card(page, name)).get_by_role("link", name=link, exact=True)
    expect(opener).to_be_visible()  # on the page that shows the card (a save just before it is still navigating)
    page.wait_for_load_state("load")  # htmx wired up: a click before then follows the link as a whole page
    opener.click()
    form = card(page, name).locator("form.action-form")
    expect(form).to_be_visible()
    settled(page)
    return form


def submit(page: Page, form: Locator, button: str) -> None:
    form.get_by_role("button", name=button, exact=True).click()
    expect(form).to_have_count(0)  # applied: the table came back with that form closed
    settled(page)


def damage(page: Page, name: str, kind: str, fields: dict[str, str]) -> None:
    form = open_card_form(page, name, "Daño")
    if kind != "Ataque físico directo":
        form.get_by_label("Tipo de daño").select_option(label=kind)
        expect(form.get_by_label(next(iter(fields)), exact=True)).to_be_visible()  # the form reloaded for that kind
        settled(page)
    for label, value in fields.items():
        form.get_by_label(label, exact=True).fill(value)
    submit(page, form, "Aplicar daño")


class Aldara:
    """Aldara as stored now: the numbers tab A's next step needs."""

    @staticmethod
    def pg() -> int:
        return Character.objects.get(name="Aldara").pg

    @staticmethod
    def illness_id() -> int:
        return Character.objects.get(name="Aldara").illnesses.get(cured_at=None).pk


def test_every_action_reaches_every_open_screen_as_a_fresh_load_shows_it(screens: Screens, demo: Campaign):
    page = screens.acting
    table = page.url
    pg = Character.objects.get(name="Aldara").pg
    screens.check("opening")

    # Damage of each kind, from Aldara's card.
    damage(page, "Aldara", "Ataque físico directo", {"Daño (PG o tirada)": "3"})
    screens.check("an attack")
    damage(page, "Aldara", "Colisión", {"Velocidad (km/h)": "10"})
    screens.check("a collision")
    damage(page, "Aldara", "Caída", {"Altura (m)": "1", "1d20 de Aldara (+ Saltar 6)": "1"})
    screens.check("a fall")
    damage(page, "Aldara", "Asfixia por inmersión", {"Turnos": "1"})
    screens.check("drowning")
    damage(page, "Aldara", "Gases nocivos", {"Turnos": "1"})
    screens.check("gas")
    assert Character.objects.get(name="Aldara").pg < pg

    # Damage to several: the living are ticked already.
    page.get_by_role("link", name="Daño a varios").click()
    party = page.locator("#form-party")
    expect(party).to_be_visible()
    settled(page)
    party.get_by_label("Daño (PG o tirada)").fill("1")
    submit(page, party, "Aplicar daño")
    screens.check("damage to several")

    # The plague (1 + CON 8 < 12: Aldara falls ill), then its treatment and medicines, each a form on her card.
    form = open_card_form(page, "Aldara", "Exponer")
    form.get_by_label("Enfermedad").select_option(label="Peste")
    form.get_by_label("1d12 de Aldara (+ CON 8)").fill("1")
    submit(page, form, "Exponer a una enfermedad")
    expect(card(page, "Aldara").get_by_text("Peste")).to_be_visible()
    screens.check("an exposure")  # the player's card shows the illness; tab B's offers its treatment links
    form = open_card_form(page, "Aldara", "Tratar enfermedad")
    expect(form.get_by_label("Enfermedad")).to_have_value(str(Aldara.illness_id()))  # the only one: chosen already
    form.get_by_label("Sanador (otro personaje con Curar Heridas)").select_option(label="Hermano Tomás")
    submit(page, form, "Tratar una enfermedad")
    screens.check("treating an illness")
    form = open_card_form(page, "Aldara", "Medicamentos")
    submit(page, form, "Dar medicamentos")
    screens.check("medicines")
    form = open_card_form(page, "Aldara", "Tratar heridas")
    form.get_by_label("Sanador (Curar Heridas)").select_option(label="Hermano Tomás")
    submit(page, form, "Tratar heridas")
    screens.check("treating wounds")

    # Down to 4 PG the exertion link appears (docs/rules.md §4); a failed check costs 1 PG.
    damage(page, "Aldara", "Ataque físico directo", {"Daño (PG o tirada)": str(Aldara.pg() - 4)})
    screens.check("the exertion band")
    form = open_card_form(page, "Aldara", "Esfuerzo")
    form.get_by_label("1d12 (+ CON 8)").fill("1")
    submit(page, form, "Tirada de esfuerzo")
    screens.check("an exertion check")

    # The clock: a preset, and a typed duration with Enter.
    page.get_by_role("button", name="+1 hora").click()
    expect(page.locator(".clock")).to_contain_text("03:00")
    screens.check("a preset advance")
    page.locator("#advance-duration").fill("2h")
    page.locator("#advance-duration").press("Enter")
    expect(page.locator(".clock")).to_contain_text("05:00")
    screens.check("a typed advance")

    page.get_by_role("button", name="Deshacer: ", exact=False).click()
    expect(page.locator(".clock")).to_contain_text("03:00")
    screens.check("undo")

    # The sheet pages: add a character, edit one's CON, remove one and bring it back.
    page.get_by_role("link", name="Añadir personaje").first.click()
    page.get_by_label("Nombre").fill("Eira")
    page.get_by_label("Constitución (CON)").fill("9")
    page.get_by_role("button", name="Guardar").click()
    expect(card(page, "Eira")).to_have_count(1)
    screens.check("adding a character")
    opened(card(page, "Aldara")).get_by_role("link", name="Editar").click()
    page.get_by_label("Constitución (CON)").fill("9")
    page.get_by_role("button", name="Guardar").click()
    expect(card(page, "Aldara")).to_contain_text("/ 90")
    screens.check("editing CON")  # the sheet's "Hoja" says CON 9 on every screen
    opened(card(page, "Sibila")).get_by_role("link", name="Eliminar").click()
    page.get_by_role("button", name="Retirar de la campaña").click()
    expect(card(page, "Sibila")).to_have_count(0)
    screens.check("removing a character")  # her card and her pending invitation go
    page.get_by_role("button", name="Deshacer: ", exact=False).click()
    expect(card(page, "Sibila")).to_have_count(1)
    screens.check("undoing the removal")

    # What the players see of one another: the GM's control, and its undo.
    settings_of(page).get_by_label("Los jugadores ven de los demás").select_option(label="sus PG exactos")
    page.locator("#form-partyview").get_by_role("button", name="Guardar").click()
    expect(page.locator("aside.log")).to_contain_text("Los jugadores ven de los demás: sus PG exactos")
    settled(page)
    screens.check("the party view")  # the player's companions show their PG; tab B's control says so
    page.get_by_role("button", name="Deshacer: Campaña editada").click()
    expect(page.get_by_label("Los jugadores ven de los demás")).to_have_value("band")
    settled(page)
    screens.check("undoing the party view")

    # An invitation link for Hermano Tomás, then revoked.
    opened(card(page, "Hermano Tomás")).get_by_role("button", name="Invitar").click()
    expect(card(page, "Hermano Tomás").get_by_role("button", name="Copiar")).to_be_visible()
    screens.check("an invitation")
    opened(card(page, "Hermano Tomás")).get_by_role("button", name="Anular el enlace de Hermano Tomás").click()
    expect(card(page, "Hermano Tomás").get_by_role("button", name="Invitar")).to_be_visible()
    screens.check("revoking an invitation")

    assert page.url.rstrip("/") == table.rstrip("/")
    screens.assert_clean()
    screenshot(screens.watching[2][0], "live-equals-reload-player-phone")
    assert page_width(screens.watching[3][0]) <= 375  # the sheet fits a phone


def test_live_equals_reload_in_english(browser: Browser, server: str, demo: Campaign):
    """A GM tab and a player's phone in English receive the live regions in English, as a fresh load shows them."""
    aldara = Character.objects.get(name="Aldara")
    table = f"{server}/campaigns/{demo.pk}/"
    gm, player = gm_context(browser, server), phone_context(browser, server, "ana")
    try:
        for context in (gm, player):  # the language select, as a person switches
            page = watch_errors(context.new_page())
            page.goto(table)
            page.get_by_label("Idioma").select_option("en")
            page.get_by_role("button", name="Cambiar").click()
            expect(page.get_by_role("button", name="Change")).to_be_visible()
            page.close()
        tab_b = open_page(gm, table)
        player_sheet = open_page(player, f"{table}characters/{aldara.pk}/")
        acting = open_page(gm, table)
        fresh_gm = without_live_updates(watch_errors(gm.new_page()))
        fresh_player = without_live_updates(watch_errors(player.new_page()))

        # Opened after the English tabs, a Spanish player's page: its stream must not decide the others' language.
        bruno = phone_context(browser, server, "bruno")
        try:
            open_page(bruno, table)
            acting.bring_to_front()
            form = open_card_form(acting, "Aldara", "Damage")
            form.get_by_label("Damage (HP or roll)").fill("3")
            submit(acting, form, "Apply damage")
            expect(acting.locator("aside.log")).to_contain_text("Aldara loses 3 HP")
            expect_live_equals_reload(tab_b, fresh_gm, GM_TABLE)
            expect_live_equals_reload(player_sheet, fresh_player, SHEET)
            expect(tab_b.locator("aside.log")).to_contain_text("Aldara loses 3 HP")
        finally:
            bruno.close()
        for page in (tab_b, player_sheet, acting, fresh_gm, fresh_player):
            assert page.errors == [], page.url
    finally:
        gm.close()
        player.close()


# --- stale tabs -----------------------------------------------------------------------------------------------------


def test_a_stale_tab_rests_the_character_it_never_showed(browser: Browser, server: str, demo: Campaign):
    """Tab B lost its live stream: it never shows Eira, added and wounded in tab A. "+1 día de descanso" in tab B
    rests her all the same (a character the tab never showed rests by default)."""
    table = f"{server}/campaigns/{demo.pk}/"
    gm = gm_context(browser, server)
    try:
        tab_b = without_live_updates(watch_errors(gm.new_page()))
        tab_b.goto(table)
        tab_a = open_page(gm, table)
        tab_a.get_by_role("link", name="Añadir personaje").first.click()
        tab_a.get_by_label("Nombre").fill("Eira")
        tab_a.get_by_label("Constitución (CON)").fill("9")
        tab_a.get_by_role("button", name="Guardar").click()
        damage(tab_a, "Eira", "Ataque físico directo", {"Daño (PG o tirada)": "10"})
        assert Character.objects.get(name="Eira").pg == 80
        expect(card(tab_b, "Eira")).to_have_count(0)  # stale indeed
        expect(tab_b.locator("#resting")).not_to_contain_text("Eira")

        tab_b.bring_to_front()
        tab_b.get_by_role("button", name="+1 día de descanso").click()
        expect(tab_b.locator(".clock")).to_contain_text("Día 2")
        assert Character.objects.get(name="Eira").pg > 80, "Eira, never shown in tab B, did not rest"
        expect(card(tab_b, "Eira").locator(".pg-value")).to_have_text(str(Character.objects.get(name="Eira").pg))
        assert tab_a.errors == [] and tab_b.errors == []
    finally:
        gm.close()


def test_a_stale_group_form_says_so_and_applies_nothing(browser: Browser, server: str, demo: Campaign):
    """Tab B has "Daño a varios" open; tab A adds a character. The live update leaves tab B's form open (it is the
    GM's work in progress), but submitting it answers the fresh form with a note and applies nothing; sent again,
    it applies."""
    table = f"{server}/campaigns/{demo.pk}/"
    gm = gm_context(browser, server)
    try:
        tab_b = open_page(gm, table)
        tab_b.get_by_role("link", name="Daño a varios").click()
        party = tab_b.locator("#form-party")
        expect(party).to_be_visible()
        settled(tab_b)
        party.get_by_label("Daño (PG o tirada)").fill("2")
        tab_a = open_page(gm, table)
        tab_a.get_by_role("link", name="Añadir personaje").first.click()
        tab_a.get_by_label("Nombre").fill("Eira")
        tab_a.get_by_label("Constitución (CON)").fill("9")
        tab_a.get_by_role("button", name="Guardar").click()
        expect(card(tab_b, "Eira")).to_have_count(1)  # the live update came
        expect(party.get_by_label("Daño (PG o tirada)")).to_have_value("2")  # and the open form stayed as it was
        before = {c.name: c.pg for c in Character.objects.all()}
        events = demo.events.count()

        tab_b.bring_to_front()
        party.get_by_role("button", name="Aplicar daño").click()
        expect(party.get_by_text(STALE)).to_be_visible()
        settled(tab_b)
        assert {c.name: c.pg for c in Character.objects.all()} == before
        assert demo.events.count() == events
        # The new choices are drawn, Eira among them; the ticks stay what the GM ticked (maybe someone left out).
        expect(party.get_by_label("Eira", exact=True)).to_have_count(1)
        party.get_by_label("Eira", exact=True).check()

        party.get_by_role("button", name="Aplicar daño").click()
        expect(party).to_have_count(0)
        after = {c.name: c.pg for c in Character.objects.all()}
        assert after == {name: pg - 2 for name, pg in before.items()}
        assert tab_a.errors == [] and tab_b.errors == []
    finally:
        gm.close()


def test_an_open_card_form_survives_a_live_update(browser: Browser, server: str, demo: Campaign):
    """A form open in a card's slot stays open, with what was typed, when a change elsewhere redraws the cards."""
    narrador = get_user_model().objects.get(username="narrador")
    gm = gm_context(browser, server)
    try:
        page = open_page(gm, f"{server}/campaigns/{demo.pk}/")
        form = open_card_form(page, "Borin", "Daño")
        form.get_by_label("Daño (PG o tirada)").fill("5")
        borin = Character.objects.get(name="Borin")
        actions.apply_damage(demo, [borin], Attack(amount=1), by=narrador)
        expect(card(page, "Borin").locator(".pg-value")).to_have_text(str(borin.pg - 1))
        expect(form.get_by_label("Daño (PG o tirada)")).to_have_value("5")
        submit(page, form, "Aplicar daño")
        assert Character.objects.get(name="Borin").pg == borin.pg - 6
        assert page.errors == []
    finally:
        gm.close()
