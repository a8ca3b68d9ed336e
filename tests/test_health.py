"""The balancer's health checks (play.views.health, play.live.health): `/healthz` says the process is up and asks
nothing of anyone; `/readyz` says it can serve the table — the database answers, every migration is applied, and its
LISTEN connection hears its own probe — or 503 with one word. Neither needs a session nor sets a cookie."""

import time

import httpx
import pytest
from django.db import connection
from django.test import Client

pytestmark = pytest.mark.django_db(transaction=True)


def ready_within(base: str, seconds: float) -> httpx.Response:
    deadline = time.monotonic() + seconds
    while True:
        answer = httpx.get(f"{base}/readyz", timeout=5)
        if answer.status_code == 200 or time.monotonic() > deadline:
            return answer
        time.sleep(0.1)


def test_healthz_and_readyz_answer_the_balancer_without_a_session(server: str):
    up = httpx.get(f"{server}/healthz", timeout=5)
    assert up.status_code == 200 and up.text == "ok\n" and "set-cookie" not in up.headers
    ready = ready_within(server, 3)
    assert ready.status_code == 200 and ready.text == "ready\n", ready.text
    assert "set-cookie" not in ready.headers and ready.headers["cache-control"].startswith("max-age=0")


def test_readyz_is_down_while_a_migration_is_not_applied(server: str):
    assert ready_within(server, 3).status_code == 200
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, app, name, applied FROM django_migrations ORDER BY id DESC LIMIT 1")
        row = cursor.fetchone()
        cursor.execute("DELETE FROM django_migrations WHERE id = %s", [row[0]])
    try:
        answer = httpx.get(f"{server}/readyz", timeout=5)
        assert answer.status_code == 503 and answer.text == "not ready: migrations\n"
    finally:
        with connection.cursor() as cursor:
            cursor.execute("INSERT INTO django_migrations (id, app, name, applied) VALUES (%s, %s, %s, %s)", row)
    assert ready_within(server, 3).status_code == 200


def test_under_wsgi_readyz_says_it_serves_no_live_screen():
    assert Client().get("/healthz").status_code == 200
    answer = Client().get("/readyz")
    assert answer.status_code == 503 and answer.content == b"not ready: asgi\n"
