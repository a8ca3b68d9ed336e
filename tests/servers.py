"""Real server processes for the tests that need one: uvicorn serving config.asgi on the test database."""

import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import httpx
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


def database_url() -> str:
    """The test database as a URL, for a server process started from a test."""
    s = connection.settings_dict
    host = quote(s["HOST"] or "", safe="")
    auth = quote(s["USER"] or "", safe="") + (":" + quote(s["PASSWORD"], safe="") if s["PASSWORD"] else "")
    port = f":{s['PORT']}" if s["PORT"] else ""
    return f"postgresql://{auth}@{host}{port}/{s['NAME']}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Served(str):
    """A test server's base URL, and its process (`process`: a test may signal it)."""

    process: subprocess.Popen


@contextmanager
def asgi_server(log: Path | None = None, graceful: int = 1, workers: int = 1, quiet: bool = True, **settings_env: str):
    """Start `uvicorn config.asgi:application` on a free port (with extra environment, e.g. a cap of the settings;
    its output written to `log`, if given; `graceful`: its --timeout-graceful-shutdown; `workers`: its processes;
    `quiet`: without uvicorn's access log and info lines, else with uvicorn's defaults); yield its base URL; stop it."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_url(), "DEBUG": "1", **settings_env}
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # set for Playwright in this process; the server must stay async-safe
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            *(["--no-access-log", "--log-level", "warning"] if quiet else []),
            "--no-proxy-headers",  # as make run and Docker serve
            "--workers",
            str(workers),
            "--timeout-graceful-shutdown",
            str(graceful),
        ],
        cwd=ROOT,
        env=env,
        stdout=None if log is None else log.open("w"),
        stderr=subprocess.STDOUT if log is not None else None,
    )
    base = Served(f"http://127.0.0.1:{port}")
    base.process = process
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{base}/accounts/login/", timeout=2)
                break
            except httpx.TransportError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the test server did not start") from None
                time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@contextmanager
def task_worker(**settings_env: str):
    """Start a task queue worker (`manage.py worker`, as `make run` and Docker run it) on the test
    database; yield its process once it has said it is there (its row in procrastinate_workers); stop it (SIGTERM, a
    graceful stop) unless the test killed it."""
    from procrastinate.contrib.django.models import ProcrastinateWorker

    env = {**os.environ, "DATABASE_URL": database_url(), "DEBUG": "1", **settings_env}
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    known = set(ProcrastinateWorker.objects.values_list("id", flat=True))
    process = subprocess.Popen([sys.executable, "manage.py", "worker"], cwd=ROOT, env=env)
    try:
        deadline = time.monotonic() + 30
        while not set(ProcrastinateWorker.objects.values_list("id", flat=True)) - known:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the task worker did not start")
            time.sleep(0.1)
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
