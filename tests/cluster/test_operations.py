"""Operating the two hosts (issue 54): a host whose database is cut off is out of the balancer's rotation within 2 s
(its /readyz) and its screens move to the other host, where they show every change; and a rolling deploy (SIGTERM a
host, migrate, start it in its new version, then the other) while the GM acts every 300 ms and two phones watch loses
no action, answers the GM no error, and leaves every screen equal to a fresh load."""

import itertools
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, expect

from tests.cluster.conftest import Cluster
from tests.cluster.hosts import ready
from tests.cluster.test_two_hosts import LIVE, demo_ids, events, pg, quick_damage
from tests.helpers import expect_live_equals_reload, log_in, watch_errors, without_live_updates
from tests.servers import ROOT

pytestmark = [pytest.mark.cluster, pytest.mark.browser]


def test_a_host_cut_off_from_the_database_is_taken_out_and_its_screens_move(
    cluster: Cluster, browser: Browser, capsys: pytest.CaptureFixture[str]
):
    def say(line: str) -> None:
        with capsys.disabled():
            print(f"[cluster] {line}", flush=True)

    campaign, _ids = demo_ids(cluster.database)
    path = f"/campaigns/{campaign}/"
    ready(cluster.hosts)
    cut = cluster.host(cluster.balancer.host_of(path))
    left = next(host for host in cluster.hosts if host is not cut)
    gm_context = browser.new_context(locale="es-ES")
    phone = browser.new_context(locale="es-ES", viewport={"width": 375, "height": 740}, is_mobile=True)
    try:
        gm = gm_context.new_page()
        log_in(gm, left.base, "narrador", "cripta-narrador")
        gm.goto(left.base + path)
        ana = phone.new_page()
        log_in(ana, cluster.balancer.base, "ana", "cripta-ana")
        ana.goto(cluster.balancer.base + path)
        ana.evaluate("window.stillTheSamePage = true")
        start = int(pg(ana, "Aldara").inner_text())

        cut.cut_from_database()
        started = time.monotonic()
        while cut.ready() == 200:
            time.sleep(0.05)
        down = time.monotonic() - started
        while cluster.balancer.host_of(path) != left.name:
            assert time.monotonic() - started < 5, "the balancer kept the host"
            time.sleep(0.05)
        out = time.monotonic() - started
        say(f"{cut.name} cut off from the database: /readyz 503 after {down:.2f} s, out of the rotation at {out:.2f} s")
        assert out < 2.0

        quick_damage(gm, "Aldara", 2)
        expect(pg(ana, "Aldara")).to_have_text(str(start - 2), timeout=LIVE)
        assert ana.evaluate("window.stillTheSamePage") is True
        say(f"the phone's screen moved to {left.name} by itself and shows the change")
        cut.joined_to_database()
        ready([cut])
        say(f"{cut.name} joined again: ready")
    finally:
        gm_context.close()
        phone.close()


class Acting(threading.Thread):
    """The GM at the table through the balancer: a quick damage of 1 every 300 ms, round the party, as htmx posts it;
    each answer's status (0: no answer at all) kept."""

    def __init__(self, base: str, campaign: int, characters: list[int]) -> None:
        super().__init__(daemon=True)
        self.base, self.campaign, self.characters = base, campaign, characters
        self.answers: list[int] = []
        self.errors: list[str] = []
        self.done = threading.Event()

    def run(self) -> None:
        with httpx.Client(base_url=self.base, timeout=10) as gm:
            login = gm.get("/accounts/login/")
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login.text)[1]
            gm.post(
                "/accounts/login/",
                data={"username": "narrador", "password": "cripta-narrador", "csrfmiddlewaretoken": token},
                headers={"Referer": self.base + "/"},
            )
            table = gm.get(f"/campaigns/{self.campaign}/")
            csrf = re.search(r'"X-CSRFToken": "([^"]+)"', table.text)[1]
            headers = {"X-CSRFToken": csrf, "HX-Request": "true", "Referer": self.base + "/"}
            tick = time.monotonic()
            for turn in itertools.count():
                if self.done.is_set():
                    return
                character = self.characters[turn % len(self.characters)]
                data = {"kind": "attack", "amount": "1", "characters": character, "character": character}
                try:
                    answer = gm.post(f"/campaigns/{self.campaign}/act/damage/", data=data, headers=headers)
                    self.answers.append(answer.status_code)
                    if answer.status_code != 200:
                        self.errors.append(f"{time.monotonic():.2f}: {answer.status_code} from {answer.headers}")
                except httpx.TransportError as error:
                    self.answers.append(0)
                    self.errors.append(f"{time.monotonic():.2f}: {error!r}")
                tick += 0.3
                time.sleep(max(0.0, tick - time.monotonic()))


def test_a_rolling_deploy_with_a_migration_loses_no_action_and_no_screen(
    cluster: Cluster, browser: Browser, capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    def say(line: str) -> None:
        with capsys.disabled():
            print(f"[deploy] {line}", flush=True)

    campaign, ids = demo_ids(cluster.database)
    path = f"/campaigns/{campaign}/"
    ready(cluster.hosts)
    first = cluster.host(cluster.balancer.host_of(path))
    second = next(host for host in cluster.hosts if host is not first)
    phones, pages = [], []
    for user in ("ana", "bruno"):
        context = browser.new_context(locale="es-ES", viewport={"width": 375, "height": 740}, is_mobile=True)
        phones.append(context)
        page = watch_errors(context.new_page())
        log_in(page, cluster.balancer.base, user, f"cripta-{user}")
        page.goto(cluster.balancer.base + path)
        page.evaluate("window.stillTheSamePage = true")
        pages.append(page)
    before = events(cluster.database, campaign)
    party = [ids[name] for name in ("Aldara", "Borin")]
    acting = Acting(cluster.balancer.base, campaign, party)
    acting.start()
    try:
        time.sleep(2)
        new = {"settings": "tests.cluster.deployed_settings", "graceful": 20}
        for host in (first, second):
            took = host.terminate()
            say(f"SIGTERM {host.name}: exited in {took:.2f} s (its graceful time: 20 s)")
            assert took < 5
            if host is first:  # the new version's migration, run once, before its first host starts
                env = {**os.environ, "DATABASE_URL": cluster.database.url, "DJANGO_SETTINGS_MODULE": new["settings"]}
                subprocess.run(
                    [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"], cwd=ROOT, env=env, check=True
                )
                say("migrated: a column added (tests/cluster/deployed)")
            host.start(cluster.database.url, cluster.network.address, tmp_path, **new)
            ready([host])
            say(f"{host.name} serves the new version")
            time.sleep(2)
    finally:
        acting.done.set()
        acting.join(10)
    answers = acting.answers
    say(f"the GM acted {len(answers)} times during the deploy: {sorted(set(answers))}")
    if set(answers) != {200}:
        for log in ("haproxy", "app1", "app2"):
            say(log + " " + (tmp_path / f"{log}.log").read_text()[-2500:].replace("\n", f"\n[deploy] {log} "))
    assert answers and set(answers) == {200}, "\n".join(acting.errors)
    assert events(cluster.database, campaign) == before + len(answers)
    for context, page in zip(phones, pages, strict=True):
        fresh = without_live_updates(context.new_page())
        expect_live_equals_reload(page, fresh, ["#cards", ".clock", "#party"])
        assert page.evaluate("window.stillTheSamePage") is True
        # the browser says each stream it reconnects ("[object Event]": htmx's SSE extension logs the EventSource's
        # error event), and a stream's response cut short when the balancer takes a host out while it was being
        # answered (a reconnect that raced the host's drain); and that the COOP header is for HTTPS sites. Nothing
        # else may be said: what counts is above, the screen equal to a fresh load without a reload.
        expected = ("[object Event]", "Failed to load resource: net::ERR_INCOMPLETE_CHUNKED_ENCODING")
        said = [error for error in page.errors if "Cross-Origin-Opener-Policy" not in error]
        assert [error for error in said if error not in expected] == []
    say("every action in the log; both phones, never reloaded, equal a fresh load")
    for context in phones:
        context.close()
