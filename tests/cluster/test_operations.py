"""Operating the two hosts (issue 54): a host whose database is cut off is out of the balancer's rotation within 2 s
(its /readyz) and its screens move to the other host, where they show every change."""

import time

import pytest
from playwright.sync_api import Browser, expect

from tests.cluster.conftest import Cluster
from tests.cluster.test_two_hosts import LIVE, demo_ids, pg, quick_damage
from tests.helpers import log_in

pytestmark = [pytest.mark.cluster, pytest.mark.browser]


def test_a_host_cut_off_from_the_database_is_taken_out_and_its_screens_move(
    cluster: Cluster, browser: Browser, capsys: pytest.CaptureFixture[str]
):
    def say(line: str) -> None:
        with capsys.disabled():
            print(f"[cluster] {line}", flush=True)

    campaign, _ids = demo_ids(cluster.database)
    path = f"/campaigns/{campaign}/"
    deadline = time.monotonic() + 30
    while any(host.ready() != 200 for host in cluster.hosts):
        assert time.monotonic() < deadline, "the hosts never got ready"
        time.sleep(0.2)
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
        while cut.ready() != 200:
            assert time.monotonic() - started < 30, "never ready again"
            time.sleep(0.2)
        say(f"{cut.name} joined again: ready")
    finally:
        gm_context.close()
        phone.close()
