import io
import os

import pytest
from django.core.management import call_command
from playwright.sync_api import Browser, Page, sync_playwright

from campaigns.models import Campaign
from tests.helpers import CHROMIUM_ARGS, chromium_path, watch_errors


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
    yield watch_errors(context.new_page())  # console errors, CSP violations, uncaught exceptions: tests assert none
    context.close()


@pytest.fixture
def phone(browser: Browser) -> Page:
    context = browser.new_context(
        locale="es-ES", viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True, device_scale_factor=2
    )
    yield watch_errors(context.new_page())
    context.close()


@pytest.fixture
def demo(transactional_db) -> Campaign:
    """The demo campaign of `load_demo`: its GM and players log in with the passwords the README gives."""
    call_command("load_demo", stdout=io.StringIO())
    return Campaign.objects.get(name="La Cripta de Hielo")
