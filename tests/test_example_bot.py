"""examples/chat_bot.py, run as its users run it, against the server `make run` serves (uvicorn, config.asgi): it
prints the GM's quick damage from the table within a second, and answers a called check from the command line."""

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from campaigns.models import TokenScope
from rules import actions
from rules.actions import tokens
from rules.models import CheckKind
from tests.helpers import World
from tests.play.streams import post_damage, session_cookies

pytestmark = pytest.mark.django_db(transaction=True)
BOT = Path(__file__).resolve().parent.parent / "examples" / "chat_bot.py"


def lines_of(process: subprocess.Popen) -> queue.Queue:
    """The bot's printed lines, as they come."""
    printed: queue.Queue = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            printed.put(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    return printed


def next_line(printed: queue.Queue, contains: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = printed.get(timeout=left)
        except queue.Empty:
            break
        if contains in line:
            return line
    raise AssertionError(f"the bot printed no line with {contains!r} within {timeout}s")


def test_the_bot_prints_the_gms_quick_damage_within_a_second(world: World, server: str):
    secret = tokens.create_token(world.gm_a, name="chat", scope=TokenScope.READ)[1]
    env = {**os.environ, "TWELVEPLUS_TOKEN": secret}
    bot = subprocess.Popen(
        [sys.executable, str(BOT), "--url", server, "--campaign", str(world.campaign_a.pk)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        printed = lines_of(bot)
        next_line(printed, "— A, ", timeout=15)  # the state: it follows
        with httpx.Client(base_url=server, cookies=session_cookies(world.gm_a), timeout=10) as gm:
            started = time.monotonic()
            post_damage(gm, server, world, turns=3)  # the table's quick damage: gas, 3 turns, on Aldara
            line = next_line(printed, "Aldara 80 → 77", timeout=1.0)
        assert time.monotonic() - started < 1.0 and "Gas" in line, line
    finally:
        bot.terminate()
        bot.wait(5)


def test_a_player_answers_a_called_check_from_the_command_line(world: World, server: str):
    actions.call_check(world.campaign_a, [world.char_a1], actions.Call(CheckKind.FALL, height_m=3), by=world.gm_a)
    secret = tokens.create_token(world.player_a, name="chat", scope=TokenScope.ACT)[1]
    run = [sys.executable, str(BOT), "--url", server, "--token", secret, "--campaign", str(world.campaign_a.pk)]
    listed = subprocess.run([*run, "--checks"], capture_output=True, text=True, timeout=30, check=True).stdout
    assert "Aldara: Tirada de caída (1d20)" in listed
    check = listed.split()[0].removeprefix("#")
    rolled = subprocess.run([*run, "--answer", check, "--die", "20"], capture_output=True, text=True, timeout=30)
    assert rolled.returncode == 0 and "Caída" in rolled.stdout, rolled.stdout + rolled.stderr
    again = subprocess.run([*run, "--answer", check], capture_output=True, text=True, timeout=30)
    assert again.returncode == 1 and "ya no está pendiente" in again.stderr
