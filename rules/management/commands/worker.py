"""`manage.py worker`: the task queue's worker (rules.tasks), kept running.

procrastinate's own worker stops when it loses the database (its listener or its heartbeat fails), and exits as if
all were well: ticks would then stop without a word. This command runs that worker and, when it stops by itself, says
so and starts it again a few seconds later, for as long as it takes the database to come back; only Ctrl-C or SIGTERM
stops it, letting a job in hand finish (PROCRASTINATE_WORKER_DEFAULTS).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from typing import Any

from django.core.management.base import BaseCommand
from procrastinate import App
from procrastinate.app import WorkerOptions
from procrastinate.contrib.django import app
from procrastinate.contrib.django.django_connector import DjangoConnector
from procrastinate.worker import Worker

AGAIN_AFTER = 3.0  # seconds between a worker stopped by itself (the database lost) and the next start


class Command(BaseCommand):
    help = "Runs the task queue's worker (the ticks of time between sessions); starts it again after a database outage."

    def handle(self, *args: Any, **options: Any) -> None:
        # The Django integration's connector reads through Django's connection; a worker needs its own (it listens).
        connector = app.connector
        assert isinstance(connector, DjangoConnector)  # the Django integration's
        with app.replace_connector(connector.get_worker_connector()):
            asyncio.run(self.supervise(app))

    async def supervise(self, worker_app: App) -> None:
        stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        for stop in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(stop, stopping.set)
        while not stopping.is_set():
            try:
                async with worker_app.open_async():
                    await self.work(worker_app, stopping)
            except Exception as error:  # the database cannot be reached yet: try again
                self.stderr.write(f"worker: {error.__class__.__name__}: {error}")
            if not stopping.is_set():
                self.stderr.write(f"worker: stopped by itself (the database lost?); starting again in {AGAIN_AFTER} s")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stopping.wait(), AGAIN_AFTER)
        self.stdout.write("worker: stopped")

    async def work(self, worker_app: App, stopping: asyncio.Event) -> None:
        """One procrastinate worker, until it stops by itself or we are asked to stop (then it finishes its jobs)."""
        options: WorkerOptions = {**worker_app.worker_defaults, "install_signal_handlers": False}
        worker = Worker(app=worker_app, **options)
        running = asyncio.create_task(worker.run())
        asked = asyncio.create_task(stopping.wait())
        await asyncio.wait({running, asked}, return_when=asyncio.FIRST_COMPLETED)
        if stopping.is_set():
            worker.stop()
        asked.cancel()
        await running
