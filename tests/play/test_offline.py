"""Issue 25, part 5, on the server's side: the service worker and the manifest that make a player's page and a sheet
work offline and installable, the pages that keep themselves (and the GM's table that never does), the answers that
make a phone forget what it kept, and a CSP that stays strict. The browser's side: tests/browser/test_offline.py."""

import json
import struct

import pytest
from django.contrib.staticfiles import finders
from django.test import Client, override_settings
from django.urls import reverse

from tests.helpers import World, client_for

STRICT = {
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "manifest-src 'self'",
    "worker-src 'self'",
    "object-src 'none'",
}


def directives(response) -> set[str]:
    return {part.strip() for part in response.headers["Content-Security-Policy"].split(";")}


def assert_strict(response) -> None:
    policy = response.headers["Content-Security-Policy"]
    assert directives(response) >= STRICT, policy
    assert "unsafe" not in policy and "*" not in policy and "blob:" not in policy


def test_the_service_worker_is_served_from_the_root_to_anyone(db) -> None:
    response = Client().get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Cache-Control"] == "no-cache"
    assert "caches.match" in response.content.decode()
    assert_strict(response)
    assert Client().post("/sw.js").status_code == 405


def test_the_manifest_makes_the_page_it_came_from_installable(world: World) -> None:
    sheet = reverse("character", args=[world.campaign_a.pk, world.char_a1.pk])
    response = Client().get(reverse("manifest"), {"start": sheet, "lang": "en"})  # no session: browsers send none
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert manifest["start_url"] == manifest["id"] == sheet
    assert manifest["scope"] == "/" and manifest["display"] == "standalone"
    assert manifest["name"] == "12Plus · Campaign tracker" and manifest["short_name"] == "12Plus"
    assert manifest["theme_color"] == "#7a2e1c"  # the top bar's --accent in static/css/app.css
    with open(str(finders.find("css/app.css")), encoding="utf-8") as css:
        assert "--accent: #7a2e1c" in css.read()
    # Nothing of an account: the campaign's and the character's names are not in it.
    text = response.content.decode()
    assert world.char_a1.name not in text and world.campaign_a.name not in text
    spanish = json.loads(Client().get(reverse("manifest"), {"start": sheet, "lang": "es"}).content)
    assert spanish["name"] == "12Plus · Seguimiento de campaña" and spanish["lang"] == "es"
    assert_strict(response)


def test_the_manifest_icons_exist_at_their_sizes(db) -> None:
    manifest = json.loads(Client().get(reverse("manifest")).content)
    sizes = set()
    for icon in manifest["icons"]:
        path = finders.find(icon["src"].removeprefix("/static/"))
        assert isinstance(path, str), icon
        if icon["type"] == "image/png":
            with open(path, "rb") as png:
                head = png.read(24)
            assert head[:8] == b"\x89PNG\r\n\x1a\n"
            width, height = struct.unpack(">II", head[16:24])
            assert f"{width}x{height}" == icon["sizes"]
            sizes.add(width)
    assert {192, 512} <= sizes


@pytest.mark.parametrize(
    "start",
    ["https://evil.example/", "//evil.example/", "/rules/", "/accounts/logout/", "/nowhere/", "javascript:x", ""],
)
def test_the_manifest_starts_only_at_a_players_page_or_a_sheet(db, start: str) -> None:
    manifest = json.loads(Client().get(reverse("manifest"), {"start": start, "lang": "xx"}).content)
    assert manifest["start_url"] == "/"
    assert manifest["lang"] == "es"


def test_a_players_page_and_a_sheet_keep_themselves_and_the_table_does_not(world: World) -> None:
    player, gm = client_for(world.player_a), client_for(world.gm_a)
    page = player.get(reverse("campaign", args=[world.campaign_a.pk]))
    sheet = player.get(reverse("character", args=[world.campaign_a.pk, world.char_a1.pk]))
    for response in (page, sheet):
        html = response.content.decode()
        assert 'data-offline="keep"' in html and f'data-user="{world.player_a.pk}"' in html
        assert 'rel="manifest"' in html and "js/offline.js" in html and 'id="offline-note"' in html
        assert "sin conexión · visto a las {time}" in html
        assert_strict(response)
    table = gm.get(reverse("campaign", args=[world.campaign_a.pk])).content.decode()
    assert 'data-offline="keep"' not in table and "js/offline.js" not in table and 'rel="manifest"' not in table
    english = player.get(
        reverse("character", args=[world.campaign_a.pk, world.char_a1.pk]), headers={"accept-language": "en"}
    )
    assert "offline · seen at {time}" in english.content.decode()


def test_the_login_page_forgets_what_a_phone_kept(db) -> None:
    html = Client().get(reverse("login")).content.decode()
    assert 'data-offline="forget"' in html and "js/offline.js" in html


def test_logging_out_and_in_clears_what_the_phone_kept(world: World) -> None:
    client = client_for(world.player_a)
    logout = client.post(reverse("logout"), secure=True)
    assert logout.status_code == 302
    assert logout["Clear-Site-Data"] == '"cache", "storage"'
    login = Client().post(reverse("login"), {"username": "player_a", "password": "pw-player_a"}, secure=True)
    assert login.status_code == 302, login.content
    assert login["Clear-Site-Data"] == '"cache", "storage"'
    refused = Client().post(reverse("login"), {"username": "player_a", "password": "wrong"}, secure=True)
    assert "Clear-Site-Data" not in refused


@pytest.mark.parametrize(
    ("host", "secure", "said"),
    [
        ("localhost", False, True),
        ("127.0.0.1", False, True),
        ("[::1]", False, True),
        ("mesa.localhost", False, True),
        ("testserver", True, True),
        ("testserver", False, False),  # a browser calls the header an error on a plain-HTTP origin: not sent there
        ("10.0.0.7", False, False),
    ],
)
def test_the_header_goes_only_where_a_browser_takes_it(world: World, host: str, secure: bool, said: bool) -> None:
    with override_settings(ALLOWED_HOSTS=["*"]):
        logout = client_for(world.player_a).post(reverse("logout"), secure=secure, HTTP_HOST=host)
    assert logout.status_code == 302
    assert ("Clear-Site-Data" in logout) is said


def test_signing_up_clears_what_the_phone_kept(db) -> None:
    response = Client().post(
        reverse("signup"),
        {"username": "nueva", "password1": "una clave larga 42", "password2": "una clave larga 42"},
        secure=True,
    )
    assert response.status_code == 302
    assert response["Clear-Site-Data"] == '"cache", "storage"'
