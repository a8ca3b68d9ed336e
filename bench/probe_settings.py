"""bench/settings.py (the project's settings and the stack floor's URLs) with bench/probe.py's marks: the servers of
bench/stages.py, the app's and the stack floor's alike."""

from bench.settings import *  # noqa: F403

INSTALLED_APPS = [*INSTALLED_APPS, "bench.probe.Probe"]  # noqa: F405
