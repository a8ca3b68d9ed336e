"""What several test modules share: the personas' world, clients, database snapshots and browser helpers.

Test modules import from here (and from tests.servers), never from one another; conftest.py files keep only fixtures.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import close_old_connections, connection
from django.db.models import Q, QuerySet
from django.test import Client
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from campaigns.models import Campaign, Event, Invitation, Membership, Role
from characters.models import Character
from config.env import env_bool
from rules import actions, engine, mapping, notify
from rules.models import Disease, Illness, Wound

# --- people and clients ----------------------------------------------------------------------------------------------


@dataclass
class World:
    """Two campaigns and every kind of visitor: the personas of the authorization matrix."""

    gm_a: object
    player_a: object
    player_a2: object
    gm_b: object
    outsider: object
    campaign_a: Campaign
    campaign_b: Campaign
    char_a1: Character  # player_a's
    char_a2: Character  # player_a2's
    npc_a: Character
    char_b: Character
    invite_a: Invitation
    co_gm: object = None  # a co-GM of campaign A (a Membership with the role "gm"), who plays nothing
    ex_co_gm: object = None  # a co-GM of campaign A once: removed_co_gm makes them one and has the owner remove them


def removed_co_gm(world: World) -> None:
    """Make `ex_co_gm` a removed co-GM of campaign A as people do: the owner's link, claimed, then the owner's
    removal (two log entries)."""
    link = actions.create_co_gm_invitation(world.campaign_a, by=world.gm_a).event
    assert link is not None
    token = Invitation.objects.get(pk=link.details["invitation"]).token
    actions.claim_invitation(token, world.ex_co_gm)  # type: ignore[arg-type]
    actions.remove_co_gm(world.campaign_a, world.ex_co_gm.pk, by=world.gm_a)  # type: ignore[attr-defined]


def make_user(username: str):
    return get_user_model().objects.create_user(username=username, password="pw-" + username)


def built_world() -> World:
    """The personas' world: two campaigns and every kind of visitor (tests/helpers.World)."""
    gm_a, player_a, player_a2, gm_b, outsider = (
        make_user(name) for name in ("gm_a", "player_a", "player_a2", "gm_b", "outsider")
    )
    campaign_a = Campaign.objects.create(name="A", gm=gm_a)
    campaign_b = Campaign.objects.create(name="B", gm=gm_b)
    Membership.objects.create(campaign=campaign_a, user=player_a)
    Membership.objects.create(campaign=campaign_a, user=player_a2)
    char_a1 = Character.objects.create(campaign=campaign_a, player=player_a, name="Aldara", constitution=8)
    char_a2 = Character.objects.create(campaign=campaign_a, player=player_a2, name="Borin", constitution=12)
    npc_a = Character.objects.create(campaign=campaign_a, name="Tomás", constitution=5)
    char_b = Character.objects.create(campaign=campaign_b, name="Zed", constitution=10)
    invite_a = Invitation.objects.create(campaign=campaign_a, character=npc_a)
    co_gm, ex_co_gm = make_user("co_gm"), make_user("ex_co_gm")
    Membership.objects.create(campaign=campaign_a, user=co_gm, role=Role.GM)
    return World(
        gm_a,
        player_a,
        player_a2,
        gm_b,
        outsider,
        campaign_a,
        campaign_b,
        char_a1,
        char_a2,
        npc_a,
        char_b,
        invite_a,
        co_gm,
        ex_co_gm,
    )


def client_for(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def gm_table(world: World) -> str:
    """The GM's table of campaign A, as a fresh load draws it."""
    return client_for(world.gm_a).get(f"/campaigns/{world.campaign_a.pk}/").content.decode()


HTMX = {"HTTP_HX_REQUEST": "true"}  # the header htmx sends, as Django test client keyword arguments

# --- the database ----------------------------------------------------------------------------------------------------


def reload(character: Character) -> Character:
    return Character.objects.get(pk=character.pk)


def snapshot():
    """Every piece of game state an action may write: compare one before and after to prove nothing changed."""
    return (
        list(Character.objects.order_by("id").values_list("pg", "died_at", "recovery_progress", "protection")),
        list(Wound.objects.order_by("id").values()),
        list(Illness.objects.order_by("id").values()),
        Event.objects.count(),
        list(Campaign.objects.order_by("id").values_list("clock", "version")),
    )


def engine_health(character: Character) -> engine.Health:
    """The engine's state of a character, built from its stored rows and its campaign's clock as they are now."""
    character = reload(character)
    wounds = list(Wound.objects.filter(character=character).order_by("id"))
    illnesses = list(Illness.objects.filter(character=character).select_related("disease").order_by("id"))
    return mapping.health_of(character, wounds, illnesses, character.campaign.clock)


def engine_pg(character: Character) -> int:
    """What the engine computes from the stored rows — must equal the stored pg."""
    return engine_health(character).pg


def stored_health(character: Character | int) -> engine.Health:
    """Like engine_health, for any character of the database, removed ones too."""
    pk = character if isinstance(character, int) else character.pk
    return stored_healths(Character.everyone.filter(pk=pk))[pk]


def stored_healths(characters: QuerySet[Character]) -> dict[int, engine.Health]:
    """stored_health of each of these characters, by id, read in three queries whatever their number (the property
    tests check every character after every step)."""
    rows = list(characters.select_related("campaign").order_by("id"))
    wounds: dict[int, list[Wound]] = defaultdict(list)
    illnesses: dict[int, list[Illness]] = defaultdict(list)
    for wound in Wound.objects.filter(character__in=rows).order_by("id"):
        wounds[wound.character_id].append(wound)
    for illness in Illness.objects.filter(character__in=rows).select_related("disease").order_by("id"):
        illnesses[illness.character_id].append(illness)
    return {row.pk: mapping.health_of(row, wounds[row.pk], illnesses[row.pk], row.campaign.clock) for row in rows}


def comparable(health: engine.Health) -> engine.Health:
    """A state to compare with the log's: its clock aside, and illnesses without their disease's current name (a
    disease renamed later renames the stored episodes, not the log)."""
    return replace(health, now=0, illnesses=tuple(replace(illness, name="") for illness in health.illnesses))


def log_mismatches(campaign: Campaign | int) -> list[str]:
    """The stored state must equal a replay of the log: for every character of the campaign (removed ones too), its
    stored state (the engine's, from its rows) equals the `after` of the latest event that holds it, or a fresh
    character's if none does. Also checks the stored PG and death against that state. Returns what differs."""
    campaign_id = campaign if isinstance(campaign, int) else campaign.pk
    latest: dict[int, dict] = {}
    for event in Event.objects.filter(campaign_id=campaign_id).order_by("id"):
        for pk, state in event.after.items():
            latest[int(pk)] = state
    problems = []
    rows = Character.everyone.filter(campaign_id=campaign_id)
    healths = stored_healths(rows)
    for row in rows.order_by("id"):
        health = healths[row.pk]
        expected = mapping.from_json(latest[row.pk]) if row.pk in latest else engine.Health(row.constitution)
        if comparable(health) != comparable(expected):
            problems.append(f"{row.name}: stored {comparable(health)} != log {comparable(expected)}")
        if (row.pg, row.died_at) != (health.pg, health.died_at):
            problems.append(f"{row.name}: stored pg/died_at {(row.pg, row.died_at)} != engine's")
        if row.constitution != expected.constitution:
            problems.append(f"{row.name}: CON {row.constitution} != log {expected.constitution}")
    return problems


def death_invariant_violations() -> list[tuple]:
    """docs/rules.md §4, "dead means PG 0, always": no one alive at 0 PG, no one dead above it."""
    return list(
        Character.everyone.filter(Q(pg=0, died_at=None) | Q(died_at__isnull=False, pg__gt=0)).values_list(
            "name", "pg", "died_at"
        )
    )


def full_snapshot(campaign: Campaign) -> dict[str, object]:
    """Everything a campaign's events may change, removed characters included: compare one taken at the start with
    one after undoing everything. The version only grows (it counts changes), so it is left out."""
    characters = Character.everyone.filter(campaign=campaign).order_by("id")
    return {
        "campaign": Campaign.objects.filter(pk=campaign.pk).values_list("name", "gm", "clock", "party_view").get(),
        "characters": list(characters.values()),
        "wounds": list(Wound.objects.filter(character__campaign=campaign).order_by("id").values()),
        "illnesses": list(Illness.objects.filter(character__campaign=campaign).order_by("id").values()),
        "invitations": list(Invitation.objects.filter(campaign=campaign).order_by("id").values()),
        "members": sorted(Membership.objects.filter(campaign=campaign).values_list("user_id", flat=True)),
        "diseases": list(Disease.objects.filter(campaign=campaign).order_by("id").values()),
    }


def unchanged(world: World) -> tuple[object, ...]:
    """Everything an action could have written: every row's state, the campaign's whole snapshot, the log's size."""
    return snapshot(), full_snapshot(world.campaign_a), Event.objects.count()


def refused(world: World, call: Callable[[], object]) -> actions.ActionError:
    """Run an action that must be refused, check it changed nothing, and return its error."""
    before = unchanged(world)
    with pytest.raises(actions.ActionError) as error:
        call()
    assert unchanged(world) == before
    return error.value


def run_at_once(jobs: list[Callable[[], object]]) -> list[BaseException]:
    """Start every job on its own thread (each with its own database connection) behind one barrier; return what
    they raised. For tests marked django_db(transaction=True): each thread commits for real."""
    barrier = threading.Barrier(len(jobs))
    errors: list[BaseException] = []

    def worker(job: Callable[[], object]) -> None:
        try:
            barrier.wait()
            job()
        except BaseException as error:  # reported to the test
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    close_old_connections()
    return errors


def on_a_thread[T](function: Callable[[], T]) -> T:
    """Run it on a thread of its own, with its own database connection: for the tests that commit (transaction=True),
    which the full suite runs after the browser tests, whose Playwright event loop stays on this thread (the test
    client refuses to run under an event loop)."""
    result: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            result.append(function())
        except BaseException as error:  # reported to the test
            errors.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return result[0]


def plague() -> Disease:
    return Disease.objects.get(name="Peste", builtin=True)


def fall_ill(world: World, character: Character, disease: Disease) -> Illness:
    # A 1 on 1d12 + CON fails against 12 (serious) up to CON 10, against 8 (common) up to CON 6.
    actions.expose(world.campaign_a, [character], disease, dice_by_character={character.pk: 1}, by=world.gm_a)
    return Illness.objects.get(character=character, disease=disease)


@contextmanager
def notify_listener() -> Iterator[psycopg.Connection]:
    """A connection of its own that LISTENs on the NOTIFY channel (use in transaction=True tests: NOTIFY is sent on
    commit)."""
    params = connection.get_connection_params()
    with psycopg.connect(
        **{k: v for k, v in params.items() if k in ("host", "port", "user", "password", "dbname")}, autocommit=True
    ) as listener:
        listener.execute(f"LISTEN {notify.CHANNEL}")
        yield listener


# --- the browser -----------------------------------------------------------------------------------------------------

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
# Flags that keep Chromium off the network and quiet on a machine with no internet (see the env notes).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def streamed(
    audience, sheet: int | None = None, event: Event | None = None, language: str = "es", site: str = "http://mesa"
) -> str | None:
    """What the live stream sends one screen of an audience (its page, or with `sheet` that character's sheet): the
    whole screen without an event, else what the event touched; None when the audience may no longer watch."""
    from play.screens.answers import Seen
    from play.screens.drawing import view_of
    from play.screens.streamed import draw_change
    from rules.notify import Change

    seen = Seen(view_of(audience, sheet), site, language)
    return draw_change(Change(audience.campaign_id, None, None if event is None else event.pk), {seen})[seen]


def chromium_path() -> str:
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.fail("Debian's chromium is not installed: `apt-get install chromium` (.ci/run does it).")
    return path


def record_error(page: Page, message) -> None:
    # A refused form answers 422 on purpose (htmx swaps the form with its messages); Chromium logs every 4xx.
    if message.type == "error" and "status of 422" not in message.text:
        page.errors.append(message.text)


def watch_errors(page: Page) -> Page:
    """Collect the page's console errors, CSP violations and uncaught exceptions in `page.errors`; tests assert it
    stays empty."""
    page.errors = []
    page.on("console", lambda message: record_error(page, message))
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    return page


def routable(page: Page) -> Page:
    """A page whose requests Playwright's routes see from its first load: request interception is switched on here,
    before anything loads, with a route that lets the actions' requests go (later routes come first). A route added
    while a page is open then only changes what is done with requests already seen. Switching interception on under
    an open page leaves a moment in which the browser may still send the page's requests unseen: a request held on
    purpose then went through untouched, the rare failure of the tests that hold one (the service worker, now blocked
    too, was the other way out). Only the actions' requests: the glob is matched by Playwright's driver, and a
    request it matches goes through this process and back, which slowed the page's scripts enough for a key pressed
    right after a load to miss them."""
    page.route("**/act/**", lambda route: route.fallback())
    return page


def page_width(page: Page) -> int:
    """How wide the page is laid out (its scroll width), once it has loaded with its stylesheet: on a loaded machine a
    page can be read before its CSS applies, when the bare form is wider than a phone."""
    page.wait_for_load_state("load")
    return int(page.evaluate("document.documentElement.scrollWidth"))


def screenshot(page: Page, name: str, full_page: bool = True) -> None:
    """The whole page as a PNG in test-artifacts/, to look at, when SCREENSHOTS=1 (`SCREENSHOTS=1 make test`): a
    full-page screenshot costs the browser a sixth of a browser test's time, and nothing reads them but people."""
    if not env_bool("SCREENSHOTS", False):
        return
    ARTIFACTS.mkdir(exist_ok=True)
    # caret="initial": hiding the caret makes Playwright inject a style, which the CSP (rightly) blocks.
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=full_page, caret="initial")


def log_in(page: Page, base_url: str, username: str, password: str) -> None:
    page.goto(f"{base_url}/accounts/login/")
    page.get_by_label("Nombre de usuario").fill(username)
    page.get_by_label("Contraseña").fill(password)
    page.get_by_role("button", name="Entrar").click()
    page.wait_for_url(f"{base_url}/")


def card(page: Page, name: str):
    """The character card on the GM's table with this name."""
    return page.locator("li.card").filter(has=page.get_by_role("heading", name=name, exact=True))


def opened(row: Locator) -> Locator:
    """A row of the GM's table with its details and actions shown: its "Más" opened, if it was not."""
    more = row.locator("details.row-more")
    if more.get_attribute("open") is None:
        more.locator("summary").click()
    return row


def settings_of(page: Page) -> Page:
    """The GM's table with "Ajustes de la campaña" (the party view, co-GMs, diseases, export, delete) opened."""
    section = page.locator("details#settings")
    if section.get_attribute("open") is None:
        section.locator("summary").click()
    return page


def settled(page: Page) -> None:
    """Wait until htmx has finished swapping and wiring up new content (htmx-added / htmx-settling go away)."""
    expect(page.locator(".htmx-added, .htmx-settling, .htmx-request")).to_have_count(0)


def sign_in(context: BrowserContext, base_url: str, username: str) -> None:
    """Log every page of a browser context in as this user, without the login form: a session made by Django's test
    client. The server under test shares the database and the SECRET_KEY, and no slow real password hash is needed
    (the tests' fast hasher is unknown to a server process). The login form itself has its own tests."""
    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": base_url}])


def context_for(
    browser: Browser, base: str, username: str, locale: str = "es-ES", phone: bool = False
) -> BrowserContext:
    """A browser signed in as this user (sign_in): a desktop at 1280 px, or a phone at 375 px that takes touches."""
    size = {"width": 375, "height": 740} if phone else {"width": 1280, "height": 900}
    context = browser.new_context(
        locale=locale, viewport=size, is_mobile=phone, has_touch=phone, device_scale_factor=2 if phone else 1
    )
    sign_in(context, base, username)
    return context


def without_live_updates(page: Page) -> Page:
    """The page's live stream never answers: the page shows what it loaded, and nothing more (a tab whose stream was
    lost, or a fresh load to compare a live page with)."""
    # The request is left pending, never answered: an answer that ends (even a 204) makes the page's EventSource log
    # an error or reconnect.
    page.route(re.compile(r".*/stream/(\?.*)?$"), lambda route: None)
    return page


# The content of regions of a page, normalised for comparing a live-updated page with a fresh load: the text, and
# every link, button, form and field (what it says, where it goes, its value, whether a plain form can be sent), without
# the CSRF tokens themselves and whatever attributes htmx adds while swapping (classes such as htmx-settling): what a
# person sees and can do there.
REGIONS_JS = """(selectors) => {
  const squash = (text) => (text || "").replace(/\\s+/g, " ").trim();
  const describe = (element) => {
    const tag = element.tagName.toLowerCase();
    const name = squash(element.getAttribute("aria-label") || element.textContent);
    const goes = ["href", "action", "hx-get", "hx-post"].map((a) => element.getAttribute(a) || "").join(" ");
    let value = "";
    if (tag === "input" || tag === "select" || tag === "textarea") {
      value = `${element.type}:${element.name}=${element.value}`;
      if (element.type === "checkbox" || element.type === "radio") value += element.checked ? " (on)" : " (off)";
    }
    // A plain POST form needs its CSRF token in the page (htmx sends the token in a header instead): without it,
    // the form is refused with a 403. Whether it has one counts, not the token's value.
    if (tag === "form" && (element.method || "").toLowerCase() === "post" && !element.hasAttribute("hx-post")) {
      value = element.querySelector("input[name=csrfmiddlewaretoken][value]:not([value=''])")
        ? "csrf token" : "NO CSRF TOKEN";
    }
    return [tag, name, squash(goes), value, element.disabled ? "disabled" : ""].join(" | ");
  };
  const result = {};
  for (const selector of selectors) {
    const root = document.querySelector(selector);
    if (root === null) { result[selector] = null; continue; }
    const controls = [...root.querySelectorAll("a, button, form, input, select, textarea, summary")]
      .filter((element) => element.name !== "csrfmiddlewaretoken")
      .map(describe);
    result[selector] = {text: squash(root.textContent), controls};
  }
  return result;
}"""


def regions(page: Page, selectors: list[str]) -> dict[str, dict | None]:
    return page.evaluate(REGIONS_JS, selectors)


def expect_live_equals_reload(live: Page, fresh: Page, selectors: list[str]) -> None:
    """docs/architecture.md principle 3: the live page, never reloaded, shows in each region what a fresh load of its
    URL shows (`fresh`: another page of the same browser context, without live updates)."""
    fresh.goto(live.url)
    wanted = regions(fresh, selectors)
    try:
        for selector, region in wanted.items():
            assert region is not None, f"{selector} missing from a fresh load of {live.url}"
            # Wait for the live update to arrive (the text is enough to wait on), then compare everything.
            expect(live.locator(selector)).to_have_text(region["text"], timeout=3000)
        settled(live)
    except AssertionError:
        pass  # it never came: say below what differs, in a few lines
    differences = region_differences(regions(live, selectors), wanted)
    assert not differences, "live differs from a fresh load:\n" + "\n".join(differences)


def region_differences(live: dict[str, dict | None], fresh: dict[str, dict | None]) -> list[str]:
    """What a live page shows differently from a fresh load, region by region, in a few readable lines."""
    lines = []
    for selector, want in fresh.items():
        got = live.get(selector)
        if got == want or want is None:
            continue
        if got is None:
            lines.append(f"  {selector}: missing from the live page")
            continue
        if got["text"] != want["text"]:
            at = next((i for i, (a, b) in enumerate(zip(got["text"], want["text"], strict=False)) if a != b), 0)
            lines.append(
                f"  {selector} text at {at}: live …{got['text'][max(at - 60, 0) : at + 60]!r}…"
                f" fresh …{want['text'][max(at - 60, 0) : at + 60]!r}…"
            )
        only_fresh = [c for c in want["controls"] if c not in got["controls"]]
        only_live = [c for c in got["controls"] if c not in want["controls"]]
        if only_fresh:
            lines.append(f"  {selector} only in a fresh load: {only_fresh[:6]}")
        if only_live:
            lines.append(f"  {selector} only live: {only_live[:6]}")
        if not only_fresh and not only_live and got["controls"] != want["controls"]:
            lines.append(f"  {selector} controls differ in order or number")
    return lines
