"""Logins and sign-ups are throttled (django-axes and play.throttle): a brute force is stopped and says so."""

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from campaigns.models import Signup
from tests.helpers import World

LOGIN = "/accounts/login/"


def attempt(client: Client, username: str, password: str, address: str = "10.0.0.1", **extra):
    return client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=address, **extra)


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_a_brute_force_on_one_account_is_stopped_even_with_the_right_password(world: World, settings):
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert attempt(client, "player_a", "wrong").status_code == 400
    locked = attempt(client, "player_a", "wrong")
    assert locked.status_code == 429
    assert locked["Retry-After"] == str(15 * 60)
    assert "Demasiados intentos fallidos" in locked.text
    assert "15 minutos" in locked.text
    # the right password from another address changes nothing while the account is locked
    right = attempt(client, "player_a", "pw-player_a", address="10.9.9.9")
    assert right.status_code == 429
    assert not signed_in(client)
    # another account from another address is not affected
    assert attempt(Client(), "player_a2", "pw-player_a2", address="10.0.0.2").status_code == 302


def test_players_sharing_an_address_do_not_lock_each_other_out(world: World, settings):
    # a table behind one router: a few typos each, more than one account's limit in all
    for name in ("player_a", "player_a2", "gm_a"):
        for _ in range(settings.AXES_FAILURE_LIMIT - 2):
            attempt(Client(), name, "typo", address="10.0.0.9")
    for name in ("player_a", "player_a2", "gm_a"):
        assert attempt(Client(), name, f"pw-{name}", address="10.0.0.9").status_code == 302


def test_one_address_trying_many_accounts_is_stopped(world: World, settings):
    for number in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT - 1):
        assert attempt(Client(), f"nobody{number}", "wrong", address="10.0.0.7").status_code == 400
    assert attempt(Client(), "nobody", "wrong", address="10.0.0.7").status_code == 429
    client = Client()
    assert attempt(client, "player_a2", "pw-player_a2", address="10.0.0.7").status_code == 429
    assert not signed_in(client)
    assert attempt(Client(), "player_a2", "pw-player_a2", address="10.0.0.8").status_code == 302


def test_the_lockout_message_is_in_english_too(world: World, settings):
    client = Client(headers={"accept-language": "en"})
    for _ in range(settings.AXES_FAILURE_LIMIT):
        response = attempt(client, "player_a", "wrong")
    assert response.status_code == 429
    assert "Too many failed attempts" in response.text


def test_a_right_password_before_the_limit_clears_the_failures(world: World, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        attempt(Client(), "player_a", "wrong")
    assert attempt(Client(), "player_a", "pw-player_a").status_code == 302
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        attempt(Client(), "player_a", "wrong")
    assert attempt(Client(), "player_a", "pw-player_a").status_code == 302


def test_an_admin_unlocks_an_account_in_the_admin(world: World, settings, admin_client):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        attempt(Client(), "player_a", "wrong")
    assert attempt(Client(), "player_a", "pw-player_a").status_code == 429
    listing = admin_client.get(reverse("admin:axes_accessattempt_changelist"))
    assert listing.status_code == 200 and "player_a" in listing.text
    ids = [str(pk) for pk in AccessAttempt.objects.values_list("pk", flat=True)]
    confirm = admin_client.post(
        reverse("admin:axes_accessattempt_changelist"),
        {"action": "delete_selected", "_selected_action": ids, "post": "yes"},
        REMOTE_ADDR="10.5.5.5",
    )
    assert confirm.status_code == 302
    assert not AccessAttempt.objects.exists()
    assert attempt(Client(), "player_a", "pw-player_a").status_code == 302


@pytest.mark.parametrize("language, words", [("es", "demasiadas cuentas"), ("en", "Too many accounts")])
def test_sign_up_is_throttled_per_address(db, settings, language, words):
    def sign_up(number: int, address: str):
        return Client(headers={"accept-language": language}).post(
            "/accounts/signup/",
            {"username": f"new{number}", "password1": "a-long-pass-phrase", "password2": "a-long-pass-phrase"},
            REMOTE_ADDR=address,
        )

    for number in range(settings.SIGNUPS_PER_HOUR):
        assert sign_up(number, "10.1.1.1").status_code == 302
    refused = sign_up(99, "10.1.1.1")
    assert refused.status_code == 429
    assert 3500 < int(refused["Retry-After"]) <= 3601  # when the first of the hour's accounts leaves it
    assert words in refused.text
    assert not get_user_model().objects.filter(username="new99").exists()
    assert sign_up(100, "10.1.1.2").status_code == 302
    assert Signup.objects.count() == settings.SIGNUPS_PER_HOUR + 1


def test_closed_sign_up_is_not_found(db, settings):
    settings.SIGNUP_OPEN = False
    assert Client().get("/accounts/signup/").status_code == 404
