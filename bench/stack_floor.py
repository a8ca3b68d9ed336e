"""The stack floor of bench/live.py: the least "the GM clicks and every screen changes" can cost through Django.

Served as the app is — uvicorn, config.asgi, one process — with bench.settings, whose URLconf (bench/urls.py) is the
project's plus these views; so every request crosses the project's whole MIDDLEWARE as it stands (security, outage,
static files, sessions, locale, common, CSRF, authentication, login required, messages, clickjacking, CSP, htmx,
django-axes) and is the campaign's GM's, looked up from the session cookie. Nothing else of the app runs: no form,
no action, no screen drawn.

- `GET  /bench/stack/ID/` — a tiny page holding the CSRF token, as the GM's table does.
- `POST /bench/stack/ID/` — posted as htmx posts (HX-Request, X-CSRFToken, the token in the form): one transaction
  locks the campaign row (`select_for_update`, scoped to its GM as the app's lookups are), bumps its `version` and
  sends `pg_notify` (delivered at commit); it answers a fixed fragment the size of a card with the new version in it.
  The form's `bytes` says how large each change's message to each client is: bench/live.py sets it to what the app
  sent per change per client in the same row, so both floors of Django move the same bytes.
- `GET  /bench/stack/ID/stream/` — an async view returning a `StreamingHttpResponse` over an async iterator: the
  current version first, then each change. One LISTEN connection per process draws each change's message once and
  puts the same bytes into every client's bounded queue of that campaign; a full queue drops its client, never
  waits for it. One heartbeat task per process, not a timer per client.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import psycopg
from asgiref.sync import sync_to_async
from django.db import connection, connections, transaction
from django.db.models import F
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, StreamingHttpResponse
from django.middleware.csrf import get_token
from django.views.decorators.http import require_GET, require_http_methods

from campaigns import access
from campaigns.models import Campaign

logger = logging.getLogger(__name__)

CHANNEL = "bench_stack_floor"
QUEUE_SIZE = 64  # as play.live.streams's
HEARTBEAT_SECONDS = 15.0
CARD_BYTES = 1400  # one card as the app answers it in bench/live.py's campaign: its state and its actions
MESSAGE_BYTES = (32, 65536)  # the sizes a change's message may be asked to have


def message(version: int, size: int) -> bytes:
    """One change's SSE message, exactly `size` bytes (at least its head): the version, then filler lines."""
    filler = max(size - len(f"event: change\ndata: v{version}\n\n"), 0)
    whole, rest = divmod(filler, 100)
    pad, last = (rest, b"") if rest < 8 else (0, b"data: " + b"x" * (rest - 7) + b"\n")
    head = f"event: change\ndata: v{version}{' ' * pad}\n".encode()  # a short rest lengthens the version's line
    return head + (b"data: " + b"x" * 93 + b"\n") * whole + last + b"\n"


def answer(campaign_id: int, version: int) -> str:
    head = f'<div id="card-{campaign_id}" class="card-state" data-how="inner" data-v="{version}">\n'
    tail = "</div>\n"
    return head + "<p>" + "x" * max(CARD_BYTES - len(head) - len(tail) - 8, 0) + "</p>\n" + tail


@require_http_methods(["GET", "POST"])
def change(request: HttpRequest, campaign_id: int) -> HttpResponse:
    if request.method == "GET":
        token = get_token(request)
        return HttpResponse(f'<form method="post"><input type="hidden" name="csrfmiddlewaretoken" value="{token}">')
    raw = request.POST.get("bytes", "")
    size = min(max(int(raw), MESSAGE_BYTES[0]), MESSAGE_BYTES[1]) if raw.isdigit() and len(raw) < 9 else 0
    with transaction.atomic():
        locked = Campaign.objects.select_for_update().filter(pk=campaign_id, gm_id=request.user.pk)
        version = locked.values_list("version", flat=True).first()
        if version is None:
            raise Http404
        Campaign.objects.filter(pk=campaign_id).update(version=F("version") + 1)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, f"{campaign_id}:{version + 1}:{size}"])
    return HttpResponse(answer(campaign_id, version + 1))


@dataclass(eq=False)
class Client:
    queue: asyncio.Queue[bytes] = field(default_factory=lambda: asyncio.Queue(QUEUE_SIZE))
    dropped: bool = False


class Hub:
    """One per process: the LISTEN connection, the clients by campaign, the heartbeat."""

    def __init__(self) -> None:
        self.clients: dict[int, set[Client]] = defaultdict(set)
        self.tasks: list[asyncio.Task[None]] = []
        self.listening: asyncio.Event | None = None

    async def started(self) -> None:
        """Listening, so that no change commits unheard between a client's first state and its first message."""
        if self.listening is None:
            self.listening = asyncio.Event()
            self.tasks = [asyncio.create_task(self.listen()), asyncio.create_task(self.beat())]
        await asyncio.wait_for(self.listening.wait(), 5)

    async def listen(self) -> None:
        params: dict[str, Any] = {
            k: v
            for k, v in connections["default"].get_connection_params().items()
            if k in ("dbname", "user", "password", "host", "port")
        }
        try:
            async with await psycopg.AsyncConnection.connect(**params, autocommit=True) as conn:
                await conn.execute(f"LISTEN {CHANNEL}")
                assert self.listening is not None
                self.listening.set()
                async for notice in conn.notifies():
                    campaign_id, version, size = (int(part) for part in notice.payload.split(":"))
                    data = message(version, size)  # once per change, whatever the number of clients
                    for client in list(self.clients.get(campaign_id, ())):
                        self.deliver(campaign_id, client, data)
        except Exception:
            logger.exception("stack floor: the LISTEN connection failed")
            raise

    async def beat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            for campaign_id, clients in list(self.clients.items()):
                for client in list(clients):
                    self.deliver(campaign_id, client, b": heartbeat\n\n")

    def deliver(self, campaign_id: int, client: Client, data: bytes) -> None:
        try:
            client.queue.put_nowait(data)
        except asyncio.QueueFull:
            client.dropped = True  # too slow: dropped, never waited for
            self.forget(campaign_id, client)

    def forget(self, campaign_id: int, client: Client) -> None:
        clients = self.clients.get(campaign_id)
        if clients is not None:
            clients.discard(client)
            if not clients:
                del self.clients[campaign_id]


hub = Hub()


async def events(campaign_id: int, client: Client, version: int) -> AsyncIterator[bytes]:
    try:
        yield b"retry: 2000\n\n" + message(version, 0)
        while not client.dropped:
            yield await client.queue.get()
    finally:
        hub.forget(campaign_id, client)  # a disconnect (CancelledError) included


def release_connection() -> None:
    connections["default"].close()  # with the pool on, this gives the connection back


@require_GET
async def stream(request: HttpRequest, campaign_id: int) -> HttpResponseBase:
    """Every member's stream of a campaign (its GM and its players alike): one query of its own, the version."""
    user = await request.auser()
    await hub.started()
    client = Client()
    hub.clients[campaign_id].add(client)  # before reading the version: a change from now on is queued
    try:
        version = await access.campaigns_of(user).filter(pk=campaign_id).values_list("version", flat=True).afirst()
        await sync_to_async(release_connection)()  # a stream must not hold a pooled connection while it lasts
    except BaseException:
        hub.forget(campaign_id, client)
        raise
    if version is None:
        hub.forget(campaign_id, client)
        raise Http404
    response = StreamingHttpResponse(events(campaign_id, client, version), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response
