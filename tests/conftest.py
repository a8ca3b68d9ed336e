import json
import os
import time
from collections.abc import Iterator
from importlib import import_module
from pathlib import Path

import pytest
from django.db.backends.postgresql.operations import DatabaseOperations
from django.db.utils import OperationalError
from django.utils import translation
from hypothesis import settings as hypothesis_settings
from playwright.sync_api import Browser, sync_playwright

from characters.models import Character
from rules.models import Disease
from tests.examples import CI_EXAMPLES
from tests.helpers import CHROMIUM_ARGS, World, built_world, chromium_path, reload
from tests.servers import asgi_server

# Hypothesis's profiles (tests/examples.py): "ci" runs each test's own number of examples (make test, CI); "dev"
# a tenth of them (make test-fast). `--hypothesis-profile` chooses (scripts/dev.py suite names one).
hypothesis_settings.register_profile("ci", max_examples=CI_EXAMPLES)
hypothesis_settings.register_profile("dev", max_examples=CI_EXAMPLES // 10)

flush = DatabaseOperations.execute_sql_flush


def flush_in_turn(self: DatabaseOperations, sql_list: list[str]) -> None:
    """A test's data flushed while a live server of its module is still at work (a stream ending writes its visit, a
    change is drawn): a deadlock between its reads and the flush's TRUNCATE makes the flush wait its turn and try
    again, as the server's transaction is over by then."""
    for attempt in range(3):
        try:
            flush(self, sql_list)
            break
        except OperationalError as error:
            if "deadlock" not in str(error) or attempt == 2:
                raise
            time.sleep(0.2)
    with_builtin_diseases()


# The site's built-in diseases (the rules' own, written by a data migration), which a flush takes away with the rest.
BUILTIN = import_module("rules.migrations.0002_builtin_diseases").BUILTIN


def with_builtin_diseases() -> None:
    """Put back the built-in diseases a test's flush took away: every test finds the site as migrated, whichever
    tests a worker ran before it (pytest-xdist hands a worker files in any order, transactional or not)."""
    if Disease.objects.filter(builtin=True).exists():
        return
    Disease.objects.bulk_create(
        Disease(name=name, campaign=None, builtin=True, category=category, penalty=penalty, pg_per_week=per_week)
        for name, category, penalty, per_week in BUILTIN
    )


DatabaseOperations.execute_sql_flush = flush_in_turn  # type: ignore[method-assign]


# Seconds each test file took in the last full parallel run (scripts/dev.py suite writes it after one that passed):
# only an order for handing files out, so a stale or missing figure costs some wall time, never a result.
DURATIONS = Path(__file__).with_name("durations.json")


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


@pytest.hookimpl(trylast=True)  # after pytest-django's, which puts the tests in Django's order
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest test files first (tests/durations.json; a file it does not know yet: a browser file before the
    others): pytest-xdist hands out files in this order (`--dist loadfile`, scripts/dev.py suite), so the short ones
    fill in at the end and no worker runs a long file alone while the others are done. The sort is stable: each file's
    tests keep their order."""
    known: dict[str, float] = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}

    def longest_first(item: pytest.Item) -> tuple[float, bool]:
        return -known.get(file_of(item.nodeid), 0.0), item.get_closest_marker("browser") is None

    items.sort(key=longest_first)


class Durations:
    """Adds up each test file's time (setup, call and teardown of every test) as the reports arrive: in the pytest-xdist
    controller, every worker's."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        name = file_of(report.nodeid)
        self.seconds[name] = self.seconds.get(name, 0.0) + report.duration

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if exitstatus == 0 and self.seconds:
            figures = {name: round(seconds, 1) for name, seconds in sorted(self.seconds.items())}
            DURATIONS.write_text(json.dumps(figures, indent=1) + "\n")


def pytest_configure(config: pytest.Config) -> None:
    # Only for a run of the whole parallel part (scripts/dev.py suite sets it), only in the controller.
    if os.environ.get("WRITE_TEST_DURATIONS") == "1" and not hasattr(config, "workerinput"):
        config.pluginmanager.register(Durations(), "test-durations")


@pytest.fixture
def world(db) -> World:
    return built_world()


@pytest.fixture
def healer(world: World) -> Character:
    """Tomás, with Curar Heridas."""
    Character.objects.filter(pk=world.npc_a.pk).update(heal_wounds=5)
    return reload(world.npc_a)


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    # The real hasher takes ~0.3 s per password on purpose; tests make hundreds of users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def spanish():
    # A request in English (tests of the language switch) leaves English active on the thread; tests start in Spanish.
    translation.activate("es")
    yield
    translation.deactivate()


@pytest.fixture(scope="session")
def server(django_db_setup) -> Iterator[str]:
    """The live server of this pytest worker: one uvicorn serving config.asgi (the only server that streams) on the
    worker's test database, started once and shared by every test that asks for it. Each test's own rows are flushed
    after it, and new rows take new ids, so nothing a test drew or kept in that process names another test's data. A
    test that needs a server of its own (other settings, two processes, a database it stops) starts one with
    `tests.servers.asgi_server` and says why."""
    with asgi_server() as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Browser:
    # Playwright's sync API keeps an event loop running in this thread while it is open; the ORM calls that the tests
    # and pytest-django's teardown make are still plain sync code. One browser per test file: a pytest-xdist worker
    # runs files in any order, and a test client on this thread refuses to run while that loop does, so the loop ends
    # with the file that needed it (a launch costs about a second).
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()
    del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
