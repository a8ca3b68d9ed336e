"""Checks on the project's own files: production settings, `make run` with DEBUG=0, docker-compose."""

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psycopg
import pytest
import yaml
from django.db import connection

from tests.servers import asgi_server, database_url, free_port

ROOT = Path(__file__).resolve().parent.parent

PRODUCTION_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "a-production-secret-key-that-is-long-and-random-enough-0123456789-abcdefghij",
    "ALLOWED_HOSTS": "tracker.example.org",
}


def test_production_settings_pass_check_deploy():
    env = {**os.environ, **PRODUCTION_ENV}
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_debug_off_without_secret_key_refuses_to_start():
    env = {**os.environ, "DEBUG": "0", "SECRET_KEY": ""}
    result = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode != 0 and "SECRET_KEY must be set" in result.stderr


def test_docker_compose_services():
    """The topology of README "Running on several machines": the database, two app hosts, the balancer in front, a
    task queue worker; and in the profile "monitoring" only, Prometheus and Grafana."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert set(services) == {"db", "web1", "web2", "balancer", "worker", "prometheus", "grafana"}
    assert all(services[name]["profiles"] == ["monitoring"] for name in ("prometheus", "grafana"))
    db = services["db"]
    assert db["image"].startswith("postgres:18")
    assert "pg_isready -h 127.0.0.1" in " ".join(db["healthcheck"]["test"])
    assert any(volume.endswith(":/var/lib/postgresql") for volume in db["volumes"])
    for name in ("web1", "web2"):
        web = services[name]
        assert web["build"] == "."
        assert web["depends_on"]["db"]["condition"] == "service_healthy"
        command = web["command"]
        assert command.index("migrate") < command.index("uvicorn config.asgi:application")
        assert "--workers" in command and "--no-proxy-headers" in command
        assert web["environment"]["DATABASE_URL"].startswith("postgresql://")
        assert "ports" not in web  # reached through the balancer only
        assert "/readyz" in " ".join(web["healthcheck"]["test"])
    balancer = services["balancer"]
    assert balancer["image"].startswith("haproxy:")
    assert any(volume.startswith("./deploy/haproxy.cfg:") for volume in balancer["volumes"])
    assert {balancer["environment"]["APP1"], balancer["environment"]["APP2"]} == {"web1:8000", "web2:8000"}
    address = balancer["networks"]["site"]["ipv4_address"]
    assert services["web1"]["environment"]["TRUSTED_PROXIES"] == address  # its X-Forwarded-For is believed
    worker = services["worker"]  # the task queue's: the ticks of time between sessions, on the same database
    assert worker["build"] == "." and worker["environment"] == services["web1"]["environment"]
    assert worker["depends_on"]["db"]["condition"] == "service_healthy"
    assert worker["command"].index("migrate") < worker["command"].index("manage.py worker")
    assert "ports" not in worker
    assert worker["restart"] == "unless-stopped"


def test_dockerfile_serves_the_same_asgi_app():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "uv sync --frozen" in dockerfile and "config.asgi:application" in dockerfile


def test_csp_header_and_language(client, db):
    response = client.get("/accounts/login/")
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert response.headers["Content-Language"] == "es"
    assert "Iniciar sesión" in response.content.decode()
    english = client.get("/accounts/login/", headers={"accept-language": "en"})
    assert english.headers["Content-Language"] == "en"


def test_docker_compose_has_no_secret_key_of_its_own():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    secret = compose["services"]["web1"]["environment"]["SECRET_KEY"]
    assert secret.startswith("${SECRET_KEY:?"), "compose must refuse to start without a SECRET_KEY"


@pytest.fixture
def empty_database(db, django_db_blocker):
    """A database of its own on the test server, dropped afterwards: what a first production start finds."""
    name = f"{connection.settings_dict['NAME']}_production"
    url = database_url().rsplit("/", 1)[0] + "/" + name
    admin_url = database_url().rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    yield url
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_make_run_in_production_serves_pages_and_creates_no_demo_accounts(empty_database, tmp_path):
    port = free_port()
    env = {
        **os.environ,
        **PRODUCTION_ENV,
        # its own static folder: another pytest worker's test client scans the project's while this one collects
        "STATIC_ROOT": str(tmp_path / "static"),
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": empty_database,
        "PORT": str(port),
        # plain http on this machine: no redirect to https, cookies without the Secure flag
        "SECURE_SSL_REDIRECT": "0",
        "SESSION_COOKIE_SECURE": "0",
        "CSRF_COOKIE_SECURE": "0",
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    # A session of its own, as a terminal gives `make run`: Ctrl-C reaches every process in it.
    process = subprocess.Popen(
        [sys.executable, "scripts/dev.py", "run"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                login = httpx.get(f"{base}/accounts/login/", timeout=5)
                break
            except httpx.TransportError:
                assert process.poll() is None, process.stdout.read().decode() if process.stdout else ""
                assert time.monotonic() < deadline, "make run did not serve within 90 s"
                time.sleep(0.3)
        assert login.status_code == 200 and "Iniciar sesión" in login.text
        stylesheet = re.search(r'href="(/static/css/app\.[0-9a-f]+\.css)"', login.text)
        assert stylesheet, "static files are served hashed, from collectstatic"
        assert httpx.get(base + stylesheet[1], timeout=5).status_code == 200
        with psycopg.connect(empty_database) as conn:
            assert conn.execute("SELECT count(*) FROM auth_user").fetchone() == (0,)
            assert conn.execute("SELECT count(*) FROM campaigns_campaign").fetchone() == (0,)
            while conn.execute("SELECT count(*) FROM procrastinate_workers").fetchone() != (1,):  # the task worker
                assert time.monotonic() < deadline, "make run started no task worker"
                time.sleep(0.3)
        # A login hashes the password it is given with the production hasher (slow on purpose, some seconds of CPU
        # while the suite's other workers run): the answer's wait, not the server's, is what may take long.
        with httpx.Client(base_url=base, timeout=60) as client:
            client.get("/accounts/login/")
            answer = client.post(
                "/accounts/login/",
                data={
                    "username": "admin",
                    "password": "cripta-admin",
                    "csrfmiddlewaretoken": client.cookies["csrftoken"],
                },
                headers={"Referer": base + "/accounts/login/"},
            )
            assert answer.status_code == 400  # no such account
    finally:
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C
        try:
            output = process.communicate(timeout=30)[0].decode()
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output = process.communicate()[0].decode()
    assert process.returncode is not None
    assert "No demo data" in output
    assert "cripta-" not in output
    assert "Stopped: the web server and the worker." in output
    with psycopg.connect(empty_database) as conn:  # the worker stopped cleanly: it said goodbye
        assert conn.execute("SELECT count(*) FROM procrastinate_workers").fetchone() == (0,)


def test_a_request_body_over_the_limit_is_refused_before_django_reads_it(db):
    with asgi_server(MAX_REQUEST_BYTES="1000") as base:
        big = httpx.post(base + "/accounts/login/", content=b"x" * 5000, timeout=10)
        assert big.status_code == 413 and "demasiado grande" in big.text

        def chunks():
            for _ in range(10):
                yield b"y" * 500

        with contextlib.suppress(httpx.TransportError):  # the server may close the connection mid-upload
            chunked = httpx.post(base + "/accounts/login/", content=chunks(), timeout=10)
            assert chunked.status_code == 413
        small = httpx.post(base + "/accounts/login/", data={"username": "a", "password": "b"}, timeout=10)
        assert small.status_code == 403  # an ordinary body goes on to Django (here: no CSRF cookie)


def test_no_template_comment_spans_lines():
    # Django's {# … #} is one line only: one that goes on to the next line is printed on the page as text.
    broken = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "templates").rglob("*.html"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if line.count("{#") != line.count("#}")
    ]
    assert broken == []


def compose_command() -> list[str] | None:
    """Docker's compose plugin, or Debian's docker-compose (scripts/ensure_test_tools.sh installs it)."""
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    return ["docker-compose"] if shutil.which("docker-compose") else None


def test_docker_compose_validates_with_the_monitoring_profile():
    command = compose_command()
    if command is None:
        message = "neither `docker compose` nor `docker-compose` here (scripts/ensure_test_tools.sh installs one)"
        if os.environ.get("CLUSTER_REQUIRED") == "1":
            pytest.fail(message)  # .ci/run installs it: there, this test runs, never skips
        pytest.skip(message)
    env = {**os.environ, "SECRET_KEY": "x" * 50}
    checked = subprocess.run(
        [*command, "--profile", "monitoring", "config", "-q"], cwd=ROOT, env=env, capture_output=True
    )
    assert checked.returncode == 0, checked.stderr.decode()
    services = subprocess.run(
        [*command, "--profile", "monitoring", "config", "--services"], cwd=ROOT, env=env, capture_output=True, text=True
    ).stdout.split()
    assert {"prometheus", "grafana", "web1", "web2", "balancer"} <= set(services)


def test_the_dashboard_graphs_only_what_the_app_counts():
    from config import metrics

    counted = {family.name for family in metrics.REGISTRY.collect() if family.name.startswith("twelveplus_")}
    dashboard = json.loads((ROOT / "deploy" / "grafana" / "twelveplus.json").read_text())
    expressions = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    named = {
        re.sub(r"_(bucket|count|sum|total)$", "", name)
        for e in expressions
        for name in re.findall(r"twelveplus_\w+", e)
    }
    assert named and named <= counted, named - counted
    assert counted - {"twelveplus_request_seconds_created"} <= named | {"twelveplus_request_seconds"}, counted - named
    scraped = yaml.safe_load((ROOT / "deploy" / "prometheus.yml").read_text())
    assert scraped["scrape_configs"][0]["static_configs"][0]["targets"] == ["web1:8000", "web2:8000"]
