"""The project's settings plus bench/urls.py: the table GET is compared with a minimal view served the same way."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
