"""LOG_FORMAT=json under a browser's walk (issue 54): every line the server writes is one JSON object; every request
the browser made is one line with its request id (the X-Request-ID it was answered with); and no line holds a
password, an API token, a session key, a CSRF token or an invitation's token."""

import json
from pathlib import Path

import httpx
import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from playwright.sync_api import Browser

from tests.helpers import World, log_in
from tests.servers import asgi_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_browser_walk_logs_one_json_line_per_request_and_no_secret(world: World, browser: Browser, tmp_path: Path):
    log = tmp_path / "server.log"
    answered: set[str] = set()
    password = "cripta-de-prueba-larga"  # hashed as the server's default hasher reads it (the tests' own is faster)
    type(world.gm_a).objects.filter(pk=world.gm_a.pk).update(
        password=PBKDF2PasswordHasher().encode(password, "sal-de-prueba", iterations=1000)
    )
    with asgi_server(log=log, quiet=False, LOG_FORMAT="json", LOG_LEVEL="INFO") as base:  # uvicorn's access log on
        context = browser.new_context(base_url=base, locale="es-ES")
        page = context.new_page()
        page.on("response", lambda r: answered.add(r.headers["x-request-id"]) if "x-request-id" in r.headers else None)
        log_in(page, base, "gm_a", password)
        page.goto(f"/campaigns/{world.campaign_a.pk}/")
        page.goto("/accounts/tokens/")
        page.get_by_label("Nombre").fill("Bot")
        page.keyboard.press("Enter")
        page.wait_for_url("**/accounts/tokens/")
        token = page.locator("input[readonly]").input_value()
        assert token.startswith("12p_")
        api = httpx.get(f"{base}/api/v1/campaigns", headers={"Authorization": f"Bearer {token}"})
        assert api.status_code == 200
        answered.add(api.headers["x-request-id"])
        page.goto(f"/invite/{world.invite_a.token}/")
        page.goto("/invite/" + "x" * 22 + "/")  # a link that is no invitation: a 404, its path not logged
        cookies = {cookie["name"]: cookie["value"] for cookie in context.cookies()}
        context.close()
    text = log.read_text()
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]  # every line a JSON object
    requests = [line for line in lines if line["logger"] == "twelveplus.requests"]
    ids = [line["request_id"] for line in requests]
    assert answered and all(ids.count(request_id) == 1 for request_id in answered), answered - set(ids)
    damage = [line for line in requests if line["view"] == "campaign" and line["status"] == 200]
    assert damage and damage[0]["campaign_id"] == world.campaign_a.pk and damage[0]["user_id"] == world.gm_a.pk
    assert all({"time", "level", "duration_ms", "route", "method"} <= line.keys() for line in requests)
    for secret in (password, token, cookies["sessionid"], cookies["csrftoken"], world.invite_a.token, "x" * 22):
        assert secret not in text, secret
