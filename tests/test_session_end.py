"""A page whose session ended elsewhere (a logout in another tab, expiry): its htmx requests get a 401 that the page
shows as one line with the way back (config.login_required, static/js/site.js); plain requests are still sent to the
login page. And /favicon.ico, which a browser asks for on pages that name no icon, is never a 404."""

import pytest
from django.contrib.sessions.models import Session
from django.contrib.staticfiles import finders
from django.templatetags.static import static
from django.test import Client
from django.urls import reverse

from tests.helpers import HTMX, World, client_for, snapshot


def damage_url(world: World) -> str:
    return reverse("damage", kwargs={"campaign_id": world.campaign_a.pk})


def quick_damage(world: World) -> dict[str, object]:
    pk = world.char_a1.pk
    return {"kind": "attack", "characters": pk, "character": pk, "slot": pk, "amount": "5"}


def ended_elsewhere(world: World) -> Client:
    """The GM's browser after a logout in another tab: it still holds its session cookie, which the server forgot."""
    client = client_for(world.gm_a)
    Session.objects.all().delete()  # what logout() does to the session the other tab shared
    return client


def test_an_htmx_action_after_the_session_ended_gets_401_and_changes_nothing(world: World):
    client = ended_elsewhere(world)
    before = snapshot()
    response = client.post(damage_url(world), quick_damage(world), **HTMX)
    assert response.status_code == 401
    assert "Location" not in response  # no redirect for the browser to follow into the table
    assert response.content == b""
    assert "HX-Request" in response["Vary"]
    assert "no-store" in response["Cache-Control"]
    assert snapshot() == before


@pytest.mark.parametrize("route", ["campaign", "damage", "campaign_log", "close_form"])
def test_every_htmx_request_without_a_session_gets_401(world: World, route: str):
    url = reverse(route, kwargs={"campaign_id": world.campaign_a.pk})
    assert Client().get(url, **HTMX).status_code == 401


def test_a_plain_request_without_a_session_is_still_sent_to_the_login_page(world: World):
    client = ended_elsewhere(world)
    url = reverse("campaign", kwargs={"campaign_id": world.campaign_a.pk})
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={url}"
    assert "HX-Request" in response["Vary"]
    before = snapshot()
    response = client.post(damage_url(world), quick_damage(world))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login") + "?next=")
    assert snapshot() == before


def test_htmx_history_restore_asks_for_a_whole_page_and_gets_the_redirect(world: World):
    url = reverse("campaign", kwargs={"campaign_id": world.campaign_a.pk})
    response = Client().get(url, HTTP_HX_HISTORY_RESTORE_REQUEST="true", **HTMX)
    assert response.status_code == 302


def test_pages_open_to_anyone_still_answer_htmx_without_a_session(db):
    assert Client().get(reverse("rules"), **HTMX).status_code == 200
    assert Client().get(reverse("login"), **HTMX).status_code == 200


def test_a_signed_in_htmx_request_is_answered_as_before(world: World):
    response = client_for(world.gm_a).get(damage_url(world) + f"?character={world.char_a1.pk}", **HTMX)
    assert response.status_code == 200


@pytest.mark.parametrize(
    "language, words",
    [("es", ("Tu sesión ha terminado:", "vuelve a entrar")), ("en", ("Your session has ended:", "sign in again"))],
)
def test_the_page_carries_the_session_ended_line_hidden_with_the_way_back(world: World, language: str, words):
    url = reverse("campaign", kwargs={"campaign_id": world.campaign_a.pk})
    client = client_for(world.gm_a)
    client.cookies["django_language"] = language
    page = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    login = f"{reverse('login')}?next={url}"
    line = f'<p id="session-ended" class="alert" role="alert" hidden>{words[0]} <a href="{login}">{words[1]}</a></p>'
    assert line in page


def test_the_way_back_keeps_the_query_of_the_page(world: World):
    url = reverse("damage", kwargs={"campaign_id": world.campaign_a.pk}) + f"?character={world.char_a1.pk}"
    page = client_for(world.gm_a).get(url).content.decode()
    assert f'href="{reverse("login")}?next={url.replace("?", "%3F").replace("=", "%3D")}"' in page


@pytest.mark.parametrize("user", ["gm_a", None])
def test_favicon_ico_leads_to_the_svg_icon(world: World, user):
    response = client_for(getattr(world, user) if user else None).get("/favicon.ico")
    assert response.status_code == 302
    assert response["Location"] == static("favicon.svg")
    assert finders.find("favicon.svg")
