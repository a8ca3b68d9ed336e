#!/usr/bin/env python3
"""A chat bot's core for the 12Plus campaign tracker's API (README "API"): it follows a campaign's live events and
prints the lines a Discord or Telegram bot would post ("Aldara 55 → 50 (Caída)"), and answers a called check from the
command line, as a player's `/tirada 14` would. Only the standard library and httpx.

    python examples/chat_bot.py --url http://127.0.0.1:8000 --token 12p_… --campaign 1            # follow
    python examples/chat_bot.py --url … --token … --campaign 1 --checks                          # pending checks
    python examples/chat_bot.py --url … --token … --campaign 1 --answer 7 --die 14                 # roll one

The token comes from the account page ("Tokens de acceso"), or from the TWELVEPLUS_TOKEN environment variable. A
dropped stream is resumed where it left off (Last-Event-ID): no line is lost nor posted twice.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx


def events(client: httpx.Client, campaign: int, last_id: str | None) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """The stream's messages as (event, id, body), until it ends or drops."""
    headers = {"Last-Event-ID": last_id} if last_id else {}
    with client.stream("GET", f"/api/v1/campaigns/{campaign}/events", headers=headers, timeout=None) as answer:
        if answer.status_code != 200:
            answer.read()
            raise SystemExit(f"{answer.status_code}: {answer.text}")
        name, event_id = "message", ""
        data: list[str] = []
        for line in answer.iter_lines():
            if line == "":  # a message ends
                if data:
                    text = "\n".join(data)
                    yield name, event_id, (json.loads(text) if text.startswith("{") else {"said": text})
                name, event_id = "message", ""
                data = []
            elif line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("id:"):
                event_id = line[3:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))


def lines_of(body: dict[str, Any], known: dict[str, int]) -> list[str]:
    """What a bot posts for one change: each character's PG before → after and what did it, else the log's words."""
    said = body.get("event") or {}
    title = said.get("title", "")
    posted = []
    for character in body.get("characters", []) + body.get("companions", []):
        name, pg = character["name"], character.get("pg")
        before = known.get(name)
        if pg is not None:
            known[name] = pg
        if pg is not None and before is not None and before != pg:
            posted.append(f"{name} {before} → {pg} ({title})" if title else f"{name} {before} → {pg}")
        elif pg is None and character.get("condition_word"):
            posted.append(f"{name}: {character['condition_word']} ({title})")
    if not posted and title:
        posted.append(" · ".join([title, *said.get("lines", [])]))
    return posted


def follow(client: httpx.Client, campaign: int) -> None:
    known: dict[str, int] = {}
    last_id: str | None = None
    delay = 1.0
    while True:
        try:
            for name, event_id, body in events(client, campaign, last_id):
                delay = 1.0
                if event_id:
                    last_id = event_id
                if name == "state":
                    known = {c["name"]: c["pg"] for c in body["characters"] + body["companions"] if c.get("pg")}
                    print(f"— {body['campaign']['name']}, {body['campaign']['clock_words']} —", flush=True)
                elif name == "change":
                    for line in lines_of(body, known):
                        print(line, flush=True)
                elif name == "end":
                    print(f"(the stream ended: {body['said']})", flush=True)
                    return
        except httpx.TransportError as error:  # the server restarted, the network dropped: resume where it left off
            print(f"(reconnecting: {error})", file=sys.stderr, flush=True)
            time.sleep(delay)
            delay = min(delay * 2, 30.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--token", default=os.environ.get("TWELVEPLUS_TOKEN", ""))
    parser.add_argument("--campaign", type=int, required=True)
    parser.add_argument("--checks", action="store_true", help="list the checks waiting for a roll")
    parser.add_argument("--answer", type=int, metavar="CHECK", help="roll this called check")
    parser.add_argument("--die", type=int, help="the die as rolled at the table (else the server rolls)")
    parser.add_argument("--language", default="es", help="es or en: the words of the answers")
    options = parser.parse_args()
    if not options.token:
        raise SystemExit("a token is needed: --token, or TWELVEPLUS_TOKEN")
    headers = {"Authorization": f"Bearer {options.token}", "Accept-Language": options.language}
    with httpx.Client(base_url=options.url, headers=headers, timeout=10) as client:
        if options.checks:
            for check in client.get(f"/api/v1/campaigns/{options.campaign}/checks").json():
                print(f"#{check['id']} {check['character_name']}: {check['kind_words']} (1d{check['die']})")
        elif options.answer is not None:
            body = {} if options.die is None else {"die": options.die}
            answer = client.post(f"/api/v1/campaigns/{options.campaign}/checks/{options.answer}/answer", json=body)
            said = answer.json()
            if answer.status_code != 200:
                raise SystemExit(said.get("title", answer.text))
            print(" · ".join([said["event"]["title"], *said["event"]["lines"]]))
        else:
            follow(client, options.campaign)


if __name__ == "__main__":
    main()
