import io

import pytest
from django.core.management import call_command
from playwright.sync_api import Browser, Page, expect

from campaigns.models import Campaign
from tests.helpers import routable, watch_errors

# How long an `expect` waits for a page to come to show something: make test runs two workers per core, and a live
# change can take longer than Playwright's default 5 s to reach a page while other workers' browsers draw. The tests
# say what a page comes to show, not how soon (bench/ measures that, against its floors).
expect.set_options(timeout=10_000)


@pytest.fixture
def page(browser: Browser) -> Page:
    context = browser.new_context(locale="es-ES", viewport={"width": 1280, "height": 900})
    yield watch_errors(context.new_page())  # console errors, CSP violations, uncaught exceptions: tests assert none
    context.close()


@pytest.fixture
def routed(browser: Browser) -> Page:
    """A page whose requests Playwright's routes see: interception on before it loads (`routable`), and without the
    site's service worker, which claims the page when it starts (at a moment of its own) and takes the page's requests
    out of the routes' sight — a request held or failed on purpose would then go through untouched."""
    context = browser.new_context(locale="es-ES", viewport={"width": 1280, "height": 900}, service_workers="block")
    yield watch_errors(routable(context.new_page()))
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
