"""Issue 25, part 5, on the server's side: the service worker and the manifest that make a player's page and a sheet
work offline and installable, the pages that keep themselves (and the GM's table that never does), the answers that
make a phone forget what it kept, and a CSP that stays strict. The browser's side: tests/browser/test_offline.py."""

import json
import struct
from dataclasses import replace

import pytest
from django.contrib.staticfiles import finders
from django.test import Client, override_settings
from django.urls import reverse

from characters.models import Character
from rules import actions
from tests.helpers import World, client_for, removed_co_gm

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


# --- kept copies follow rights (issue 48): which kept pages an account has lost ---------------------------------------


def lost_for(user, *paths: str) -> dict:
    """What the service worker hears when it asks, for this account, about these paths (static/js/sw.js, prune)."""
    response = client_for(user).get(reverse("kept_pages"), {"path": list(paths)})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"
    return json.loads(response.content)


def kept_paths(world: World) -> tuple[str, str, str, str]:
    a, b = world.campaign_a.pk, world.campaign_b.pk
    return (
        reverse("campaign", args=[a]),
        reverse("character", args=[a, world.char_a1.pk]),
        reverse("character", args=[a, world.char_a2.pk]),
        reverse("character", args=[b, world.char_b.pk]),
    )


def test_a_player_loses_nothing_of_their_own_and_everything_of_others(world: World) -> None:
    page, own, companion, elsewhere = kept_paths(world)
    answer = lost_for(world.player_a, page, own, companion, elsewhere)
    assert answer == {"user": world.player_a.pk, "lost": sorted([companion, elsewhere])}
    # The sheet's own pages beneath it, and any page not kept, are not answered for.
    assert lost_for(world.player_a, own + "log/", "/rules/", "/", "/nowhere/", "x", "//evil.example/")["lost"] == []


def test_the_gm_and_a_co_gm_keep_every_sheet_of_their_table(world: World) -> None:
    page, own, companion, elsewhere = kept_paths(world)
    npc = reverse("character", args=[world.campaign_a.pk, world.npc_a.pk])
    for gm in (world.gm_a, world.co_gm):
        assert lost_for(gm, page, own, companion, npc, elsewhere)["lost"] == [elsewhere]


def test_a_removed_character_is_lost_with_its_players_page(world: World) -> None:
    page, own, _companion, _elsewhere = kept_paths(world)
    actions.remove_character(world.campaign_a, world.char_a1, by=world.gm_a)
    # player_a plays nothing else here: their page goes too (the live stream no longer serves them either).
    assert lost_for(world.player_a, page, own)["lost"] == sorted([page, own])
    assert lost_for(world.gm_a, page, own)["lost"] == [own]  # out of play for the GM too: its sheet is not kept


def test_a_character_handed_to_another_player_is_lost_to_the_old_one(world: World) -> None:
    page, own, companion, _elsewhere = kept_paths(world)
    Character.objects.filter(pk=world.npc_a.pk).update(player=world.player_a)  # player_a plays two characters
    npc = reverse("character", args=[world.campaign_a.pk, world.npc_a.pk])
    sheet = actions.Sheet.of(world.char_a1)
    actions.edit_character(world.campaign_a, world.char_a1, replace(sheet, player_id=world.player_a2.pk), by=world.gm_a)
    assert lost_for(world.player_a, page, own, npc)["lost"] == [own]  # their page and their other sheet stay
    assert lost_for(world.player_a2, page, own, companion)["lost"] == []  # the new player's now


def test_a_removed_co_gm_loses_the_sheets_of_the_table(world: World) -> None:
    page, own, companion, _elsewhere = kept_paths(world)
    removed_co_gm(world)
    assert lost_for(world.ex_co_gm, page, own, companion)["lost"] == sorted([page, own, companion])


def test_nothing_is_said_of_a_campaign_the_account_may_not_see(world: World) -> None:
    """Another campaign's page and sheets, and ids of nothing at all, are answered alike: lost."""
    b, char_b = world.campaign_b.pk, world.char_b.pk
    seen = [reverse("campaign", args=[b]), reverse("character", args=[b, char_b])]
    nothing = [reverse("campaign", args=[b + 1000]), reverse("character", args=[b + 1000, char_b + 1000])]
    absurd = [f"/campaigns/{10**30}/", f"/campaigns/{b}/characters/{10**30}/"]
    for user in (world.outsider, world.player_a, world.gm_a):
        assert lost_for(user, *seen, *nothing, *absurd)["lost"] == sorted([*seen, *nothing, *absurd])
    # A character asked under another campaign's path is not its sheet.
    assert lost_for(world.gm_b, reverse("character", args=[world.campaign_a.pk, char_b]))["lost"] != []


def test_signed_out_every_kept_page_is_lost(world: World) -> None:
    page, own, _companion, _elsewhere = kept_paths(world)
    response = Client().get(reverse("kept_pages"), {"path": [page, own]})
    assert response.status_code == 200
    assert json.loads(response.content) == {"user": None, "lost": sorted([page, own])}
    assert Client().post(reverse("kept_pages")).status_code == 405


def test_a_question_reads_a_bounded_number_of_paths(world: World, django_assert_max_num_queries) -> None:
    """However many paths a phone asks about, the server reads at most 100 (the worker asks in batches of that many)
    and one campaign's roster per campaign among them, up to 20."""
    paths = [reverse("character", args=[10_000 + n, n]) for n in range(1, 1000)]
    paths[1:1] = [reverse("character", args=[world.campaign_a.pk, world.char_a1.pk])]
    client = client_for(world.player_a)
    with django_assert_max_num_queries(8):  # the session and the account (3), the campaigns, one roster (2)
        answer = json.loads(client.get(reverse("kept_pages"), {"path": paths}).content)
    assert len(answer["lost"]) == 99 and paths[1] not in answer["lost"]


def test_the_service_worker_asks_where_the_server_answers() -> None:
    with open(str(finders.find("js/sw.js")), encoding="utf-8") as worker:
        source = worker.read()
    assert f'const KEPT = "{reverse("kept_pages")}"' in source
    assert "const ASKED_AT_ONCE = 100;" in source
