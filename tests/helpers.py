"""What several test modules share: the personas' world, clients, database snapshots and browser helpers.

Test modules import from here (and from tests.servers), never from one another; conftest.py files keep only fixtures.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from playwright.sync_api import Page, expect

from campaigns.models import Campaign, Event, Invitation
from characters.models import Character
from rules import engine, mapping, notify
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


def make_user(username: str):
    return get_user_model().objects.create_user(username=username, password="pw-" + username)


def client_for(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


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


def plague() -> Disease:
    return Disease.objects.get(name="Peste", builtin=True)


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


def screenshot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    # caret="initial": hiding the caret makes Playwright inject a style, which the CSP (rightly) blocks.
    page.screenshot(path=str(path), full_page=True, caret="initial")
    return path


def log_in(page: Page, base_url: str, username: str, password: str) -> None:
    page.goto(f"{base_url}/accounts/login/")
    page.get_by_label("Nombre de usuario").fill(username)
    page.get_by_label("Contraseña").fill(password)
    page.get_by_role("button", name="Entrar").click()
    page.wait_for_url(f"{base_url}/")


def card(page: Page, name: str):
    """The character card on the GM's table with this name."""
    return page.locator("li.card").filter(has=page.get_by_role("heading", name=name, exact=True))


def settled(page: Page) -> None:
    """Wait until htmx has finished swapping and wiring up new content (htmx-added / htmx-settling go away)."""
    expect(page.locator(".htmx-added, .htmx-settling, .htmx-request")).to_have_count(0)
