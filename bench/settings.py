"""The project's settings (its MIDDLEWARE as is) plus bench/urls.py: the table GET is compared with a minimal view,
and the live updates with the stack floor (bench/stack_floor.py), served the same way as the app."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
