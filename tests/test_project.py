"""Checks on the project's own files: production settings, docker-compose."""

import os
import subprocess
import sys
from pathlib import Path

import yaml

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
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    db, web = compose["services"]["db"], compose["services"]["web"]
    assert db["image"].startswith("postgres:18")
    assert "pg_isready -h 127.0.0.1" in " ".join(db["healthcheck"]["test"])
    assert any(volume.endswith(":/var/lib/postgresql") for volume in db["volumes"])
    assert web["build"] == "."
    assert web["depends_on"]["db"]["condition"] == "service_healthy"
    command = web["command"]
    assert command.index("migrate") < command.index("uvicorn config.asgi:application")
    assert "--workers" in command
    assert web["environment"]["DATABASE_URL"].startswith("postgresql://")


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
