import os
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
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


@pytest.fixture(scope="session")
def browser() -> Browser:
    # Playwright's sync API keeps an event loop running in this thread for the whole session; the ORM calls that the
    # tests and pytest-django's teardown make are still plain sync code.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()
    del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]


@pytest.fixture
def page(browser: Browser) -> Page:
    context = browser.new_context(locale="es-ES", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.errors = []  # console errors and CSP violations; the tests assert there are none
    page.on("console", lambda message: record_error(page, message))
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    yield page
    context.close()


@pytest.fixture
def phone(browser: Browser) -> Page:
    context = browser.new_context(
        locale="es-ES", viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True, device_scale_factor=2
    )
    page = context.new_page()
    page.errors = []
    page.on("console", lambda message: record_error(page, message))
    yield page
    context.close()


def record_error(page: Page, message) -> None:
    # A refused form answers 422 on purpose (htmx swaps the form with its messages); Chromium logs every 4xx.
    if message.type == "error" and "status of 422" not in message.text:
        page.errors.append(message.text)


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
