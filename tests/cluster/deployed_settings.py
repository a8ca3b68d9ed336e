"""The settings of the "new version" a rolling deploy starts (tests/cluster/test_operations.py): the app's, with one
migration more (tests/cluster/deployed)."""

from config.settings import *  # noqa: F403

INSTALLED_APPS = [*INSTALLED_APPS, "tests.cluster.deployed"]  # noqa: F405
