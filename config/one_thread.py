"""The last of MIDDLEWARE, and sync only: in front of it, Django runs every middleware in sync mode, one after the
other on the request's own thread, with one hop from the event loop to that thread and one back.

Without it, under ASGI, Django runs each of its middleware classes in async mode, which for theirs (MiddlewareMixin)
means a hop to the thread and back for each request hook and each response hook, for work that never waits on
anything but the database, which is sync anyway: a page's request hopped 22 times, 9 with this (what is left: the
request's signals, the view, and SecurityMiddleware in front of servestatic's, which is async only;
tests/play/test_stream_way.py). In-process through config.asgi (bench/RESULTS.md, 2026-12-03): a minimal view
9.3–11.1 → 6.7–7.0 ms of CPU, the GM's quick damage 18.8–21.7 → 16.1–16.7. Live streams take their own way
(config.stream_gate), in async mode, without this.
"""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.decorators import sync_only_middleware


@sync_only_middleware
def OneThreadMiddleware(  # noqa: N802 — a middleware factory, named as Django's middleware classes are
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[[HttpRequest], HttpResponse]:
    return get_response
