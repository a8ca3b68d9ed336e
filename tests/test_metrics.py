"""/metrics (config.metrics, play.views.health.metrics): Prometheus's text format, for the addresses the operator
names only; the requests by view and status, the actions by kind and the refusals, the streams open by screen and a
change's trip from its NOTIFY to the last stream's send — summed over processes when PROMETHEUS_MULTIPROC_DIR is set."""

import re
import time

import httpx
import pytest
from django.test import Client

from rules import actions
from rules.damage import Attack
from tests.helpers import World
from tests.play.streams import Listener, pg_text, post_damage, session_cookies, stream_path
from tests.servers import asgi_server


def value(text: str, sample: str) -> float:
    """A sample's value in the exposition ("name{labels}"), 0 when absent."""
    found = re.search(rf"^{re.escape(sample)} (\S+)$", text, re.M)
    return float(found.group(1)) if found else 0.0


def test_metrics_only_for_the_addresses_named(world: World, settings):
    assert Client(REMOTE_ADDR="10.1.2.3").get("/metrics").status_code == 404
    answer = Client().get("/metrics")  # the test client's 127.0.0.1: this machine
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/plain")
    assert "twelveplus_request_seconds_bucket" in answer.content.decode()
    settings.METRICS_ALLOWED = []
    assert Client().get("/metrics").status_code == 404


def test_actions_by_kind_and_refusals_are_counted(world: World, django_capture_on_commit_callbacks):
    before = Client().get("/metrics").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=2), by=world.gm_a)
    with pytest.raises(actions.ActionError):
        actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=-5), by=world.gm_a)
    after = Client().get("/metrics").content.decode()
    kind = 'twelveplus_actions_total{kind="damage"}'
    assert value(after, kind) == value(before, kind) + 1
    assert value(after, "twelveplus_refusals_total") >= value(before, "twelveplus_refusals_total") + 1


@pytest.mark.django_db(transaction=True)
def test_streams_and_a_changes_trip_to_the_last_screen_summed_over_processes(world: World, tmp_path):
    with asgi_server(PROMETHEUS_MULTIPROC_DIR=str(tmp_path)) as base:
        gm = Listener(base, stream_path(world), world.gm_a)
        player = Listener(base, stream_path(world), world.player_a)
        try:
            gm.wait_for_region(f"card-{world.char_a1.pk}", pg_text(80, 80))
            player.wait_for_region(f"card-{world.char_a1.pk}", pg_text(80, 80))
            with httpx.Client(base_url=base, cookies=session_cookies(world.gm_a), timeout=10) as client:
                post_damage(client, base, world, turns=3)  # from a tab with no stream: both streams are sent it
            player.wait_for_region(f"card-{world.char_a1.pk}", pg_text(77, 80))
            gm.wait_for_region(f"card-{world.char_a1.pk}", pg_text(77, 80))
            time.sleep(0.2)
            text = httpx.get(f"{base}/metrics", timeout=5).text
            assert value(text, 'twelveplus_streams_open{screen="table"}') == 1
            assert value(text, 'twelveplus_streams_open{screen="page"}') == 1
            assert value(text, "twelveplus_change_fanout_seconds_count") >= 1
            assert value(text, "twelveplus_changes_fanned_out_total") >= 1
            assert value(text, 'twelveplus_request_seconds_count{status="200",view="damage"}') == 1
            assert value(text, 'twelveplus_actions_total{kind="damage"}') == 1
            assert value(text, 'twelveplus_db_pool_connections{state="size"}') >= 1
        finally:
            gm.close()
            player.close()


@pytest.mark.django_db(transaction=True)
def test_several_workers_are_summed(tmp_path):
    with asgi_server(PROMETHEUS_MULTIPROC_DIR=str(tmp_path), workers=2) as base:
        for _ in range(20):
            with httpx.Client(base_url=base, timeout=5) as client:  # a new connection: either worker may take it
                assert client.get("/healthz").status_code == 200
        pids = {path.name.rsplit("_", 1)[-1] for path in tmp_path.glob("histogram_*.db")}
        text = httpx.get(f"{base}/metrics", timeout=5).text
        assert len(pids) == 2, pids  # both workers answered some
        assert value(text, 'twelveplus_request_seconds_count{status="200",view="healthz"}') == 20
