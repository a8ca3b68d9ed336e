import gc
import os

from django.conf import settings
from django.core.asgi import get_asgi_application
from django.urls import get_resolver
from django.utils.module_loading import import_string

from config.request_size import limit_request_size
from config.stream_gate import StreamHandler, streams_in_turn

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

pages = limit_request_size(get_asgi_application(), settings.MAX_REQUEST_BYTES)
streams = limit_request_size(StreamHandler(), settings.MAX_REQUEST_BYTES)
application = import_string(settings.STREAM_RECONNECTS)(
    streams_in_turn(pages, streams, settings.STREAM_CONNECTS_AT_ONCE)
)

# What is loaded now (Django, the apps, the URLconf and its views) lives as long as the process: kept out of the
# garbage collector's sight, a full collection walks only what requests left behind. Walking these ~90,000 objects
# took ~50 ms, a pause a busy page (the GM's table) hit every hundred requests or so (bench/live.py, its p99).
get_resolver().url_patterns  # noqa: B018 — imports every view now, so that they are frozen too
gc.collect()
gc.freeze()
