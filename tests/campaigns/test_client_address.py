"""The address the throttles count (config.client_address): the socket's, whatever X-Forwarded-For a client writes,
unless the request comes from a proxy named in TRUSTED_PROXIES; then the right-most address that is not such a proxy."""

from ipaddress import ip_network

import httpx
import pytest
from django.test import Client

from campaigns.models import Signup
from config.client_address import client_address
from config.env import env_networks
from tests.servers import asgi_server

PROXIES = [ip_network("10.0.0.2/32"), ip_network("10.1.0.0/16")]


@pytest.mark.parametrize(
    "remote, forwarded, counted",
    [
        ("203.0.113.9", "198.51.100.1", "203.0.113.9"),  # a client writing the header itself: ignored
        ("203.0.113.9", "", "203.0.113.9"),
        ("10.0.0.2", "198.51.100.1", "198.51.100.1"),  # through the trusted proxy
        ("10.0.0.2", "6.6.6.6, 198.51.100.1", "198.51.100.1"),  # what the client wrote before it counts for nothing
        ("10.0.0.2", "198.51.100.1, 10.1.4.4", "198.51.100.1"),  # two trusted proxies in a row
        ("10.0.0.2", "10.1.4.4, 10.1.5.5", "10.0.0.2"),  # only proxies: the nearest is all we know
        ("10.0.0.2", "", "10.0.0.2"),
        ("10.0.0.2", "not an address, 198.51.100.1", "198.51.100.1"),
        ("10.0.0.2", "198.51.100.1, garbage", "10.0.0.2"),  # garbage where a proxy would write: the proxy only
        ("10.0.0.2", "2001:db8::7", "2001:db8::7"),
        ("10.0.0.2", "\x00, ²", "10.0.0.2"),
    ],
)
def test_the_counted_address(remote: str, forwarded: str, counted: str):
    assert client_address(remote, forwarded, PROXIES) == counted


def test_trusted_proxies_as_the_operator_writes_them(monkeypatch):
    monkeypatch.setenv("TRUSTED_PROXIES", " 10.0.0.2, 10.1.0.0/16 ,")
    assert env_networks("TRUSTED_PROXIES") == PROXIES
    monkeypatch.setenv("TRUSTED_PROXIES", "10.0.0.2, proxy.example")
    with pytest.raises(ValueError, match="proxy.example"):
        env_networks("TRUSTED_PROXIES")


def sign_up(client: Client, number: int, **headers: str) -> int:
    data = {"username": f"new{number}", "password1": "a-long-pass-phrase", "password2": "a-long-pass-phrase"}
    return client.post("/accounts/signup/", data, **headers).status_code


def test_a_forged_header_from_a_client_changes_nothing(db, settings):
    client = Client(REMOTE_ADDR="203.0.113.9")
    for number in range(settings.SIGNUPS_PER_HOUR):
        assert sign_up(client, number, HTTP_X_FORWARDED_FOR=f"198.51.100.{number}") == 302
    assert sign_up(client, 99, HTTP_X_FORWARDED_FOR="198.51.100.99") == 429
    assert set(Signup.objects.values_list("address", flat=True)) == {"203.0.113.9"}


def test_through_a_trusted_proxy_the_real_client_is_counted(db, settings):
    settings.TRUSTED_PROXIES = PROXIES
    proxy = Client(REMOTE_ADDR="10.0.0.2")
    for number in range(settings.SIGNUPS_PER_HOUR):
        assert sign_up(proxy, number, HTTP_X_FORWARDED_FOR=f"6.6.6.{number}, 198.51.100.1") == 302
    assert sign_up(proxy, 99, HTTP_X_FORWARDED_FOR="198.51.100.1") == 429  # that client's limit
    assert sign_up(proxy, 100, HTTP_X_FORWARDED_FOR="198.51.100.2") == 302  # another client behind the same proxy
    assert set(Signup.objects.values_list("address", flat=True)) == {"198.51.100.1", "198.51.100.2"}


def test_a_forged_header_does_not_lock_out_a_real_address(world, settings):
    for _ in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT + 1):
        Client(REMOTE_ADDR="127.0.0.1").post(
            "/accounts/login/",
            {"username": "nobody", "password": "wrong"},
            HTTP_X_FORWARDED_FOR="203.0.113.7",
        )
    real = Client(REMOTE_ADDR="203.0.113.7")
    real.post("/accounts/login/", {"username": world.gm_a.username, "password": "pw-gm_a"})
    assert "_auth_user_id" in real.session


@pytest.mark.django_db(transaction=True)
def test_the_server_as_make_run_serves_it_counts_the_socket():
    """uvicorn run as make run and Docker run it (--no-proxy-headers): a header from 127.0.0.1 counts for nothing."""
    # timeout: each sign-up hashes its password with the production hasher, seconds of CPU on a busy machine
    with asgi_server(SIGNUPS_PER_HOUR="2") as base, httpx.Client(base_url=base, timeout=60) as client:
        statuses = []
        for number in range(3):
            page = client.get("/accounts/signup/")
            token = page.text.split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
            data = {
                "csrfmiddlewaretoken": token,
                "username": f"far{number}",
                "password1": "a-long-pass-phrase",
                "password2": "a-long-pass-phrase",
            }
            headers = {"X-Forwarded-For": f"198.51.100.{number}", "Referer": f"{base}/accounts/signup/"}
            statuses.append(client.post("/accounts/signup/", data=data, headers=headers).status_code)
            client.cookies.pop("sessionid", None)  # signed up and signed in: a visitor again
        assert statuses == [302, 302, 429]
    assert set(Signup.objects.values_list("address", flat=True)) == {"127.0.0.1"}
