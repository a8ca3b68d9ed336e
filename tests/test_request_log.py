"""Each request's id (config.request_log): the balancer's X-Request-ID when the request comes from a proxy named in
TRUSTED_PROXIES and looks like an id, else one made here; answered in X-Request-ID either way. A client cannot name its
own request's id, nor put odd bytes in the logs through it."""

import os
import subprocess
import sys
from ipaddress import ip_network

import pytest
from django.test import Client

from tests.servers import ROOT

BALANCER = "10.0.0.2"
SENT = "4f1c1b7e-9a0e-4b8e-a7c4-1e2f3a4b5c6d"


@pytest.fixture
def behind_a_balancer(settings):
    settings.TRUSTED_PROXIES = [ip_network(BALANCER)]


@pytest.mark.django_db
def test_the_balancers_id_is_kept_and_anyone_elses_is_not(behind_a_balancer):
    kept = Client(REMOTE_ADDR=BALANCER).get("/healthz", headers={"X-Request-ID": SENT})
    assert kept["X-Request-ID"] == SENT
    forged = Client(REMOTE_ADDR="203.0.113.9").get("/healthz", headers={"X-Request-ID": SENT})
    assert forged["X-Request-ID"] != SENT and len(forged["X-Request-ID"]) == 32
    for odd in ("x", "a" * 65, "id with spaces", "²²²²²²²²²", "abc\x00defgh", "<script>alert(1)</script>"):
        answer = Client(REMOTE_ADDR=BALANCER).get("/healthz", headers={"X-Request-ID": odd})
        assert answer.status_code == 200 and answer["X-Request-ID"] != odd


@pytest.mark.django_db
def test_every_answer_has_its_own_id():
    ids = {Client().get("/healthz")["X-Request-ID"] for _ in range(5)}
    assert len(ids) == 5


def test_json_logs_leave_out_the_servers_access_lines_which_name_paths():
    """uvicorn's access log names each path (an invitation's token may be in it): with LOG_FORMAT=json it is silenced,
    whatever the server's own options (`make run` does not pass --log-level), and each request's line is ours."""
    shown = subprocess.run(
        [sys.executable, "-c", "from config import settings; print(settings.LOGGING['loggers']['uvicorn.access'])"],
        cwd=ROOT,
        env={**os.environ, "LOG_FORMAT": "json"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "'handlers': []" in shown and "'level': 'CRITICAL'" in shown
