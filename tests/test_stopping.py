"""A process told to stop (SIGTERM: a deploy, `docker stop`) ends its live streams at once, each telling its browser
to reconnect in a quarter of a second (to another host, through the balancer), says "stopping" to the balancer's
`/readyz`, and exits as soon as nothing is in flight — not held for its whole graceful time by streams that never end
by themselves (play.live.stopping, Hub.leave)."""

import signal
import threading
import time

import httpx
import pytest

from campaigns.models import TokenScope
from rules.actions import tokens
from tests.helpers import World
from tests.play.streams import Listener, pg_text, stream_path
from tests.servers import asgi_server

pytestmark = pytest.mark.django_db(transaction=True)


class Raw:
    """A stream's bytes as they come, on a thread of their own."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        self.received = b""
        self.ended = threading.Event()
        threading.Thread(target=self.read, args=(url, headers), daemon=True).start()

    def read(self, url: str, headers: dict[str, str]) -> None:
        try:
            with httpx.stream("GET", url, headers=headers, timeout=httpx.Timeout(5, read=60)) as answer:
                for chunk in answer.iter_raw():
                    self.received += chunk
        except httpx.HTTPError:
            pass
        finally:
            self.ended.set()


def test_sigterm_moves_every_stream_and_exits_without_waiting_for_them(world: World):
    secret = tokens.create_token(world.gm_a, name="bot", scope=TokenScope.ACT)[1]
    with asgi_server(graceful=20) as base:
        page = Listener(base, stream_path(world), world.player_a)
        page.wait_for_region(f"card-{world.char_a1.pk}", pg_text(80, 80))
        bot = Raw(f"{base}/api/v1/campaigns/{world.campaign_a.pk}/events", {"Authorization": f"Bearer {secret}"})
        deadline = time.monotonic() + 10
        while b"event: state" not in bot.received:
            assert time.monotonic() < deadline, bot.received
            time.sleep(0.05)
        while httpx.get(f"{base}/readyz", timeout=5).status_code != 200:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        stopped = time.monotonic()
        base.process.send_signal(signal.SIGTERM)
        assert bot.ended.wait(2) and page.ended.wait(2)
        assert bot.received.endswith(b"retry: 250\n\n"), bot.received[-200:]
        base.process.wait(timeout=5)
        assert time.monotonic() - stopped < 3.0  # its graceful time is 20 s: nothing held it
        page.close()
