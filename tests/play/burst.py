"""A burst of live-stream connects from a process of its own, so that its client's work does not slow the test's own
requests: `python -m tests.play.burst BASE COUNT` reads [[path, session cookie], ...] (JSON) on its input, opens COUNT
streams for each pair, all at once, holds each until every one has its answer; prints "open" as it starts them and
their statuses (JSON) at the end. `burst` is the same, in the caller's process."""

import asyncio
import json
import sys

import httpx


async def burst(base: str, count: int, screens: list[tuple[str, str]]) -> list[int]:
    total = count * len(screens)
    everyone_answered = asyncio.Event()
    statuses: list[int] = []

    async def one(client: httpx.AsyncClient, path: str) -> None:
        async with client.stream("GET", path) as response:
            statuses.append(response.status_code)
            if len(statuses) == total:
                everyone_answered.set()
            await asyncio.wait_for(everyone_answered.wait(), 120)

    limits = httpx.Limits(max_connections=count + 5)
    clients = [
        (httpx.AsyncClient(base_url=base, cookies={"sessionid": cookie}, timeout=120, limits=limits), path)
        for path, cookie in screens
    ]
    try:
        await asyncio.gather(*(one(client, path) for client, path in clients for _ in range(count)))
    finally:
        for client, _ in clients:
            await client.aclose()
    return statuses


if __name__ == "__main__":
    base, count = sys.argv[1:]
    screens = [(path, cookie) for path, cookie in json.loads(sys.stdin.read())]
    print("open", flush=True)
    print(json.dumps(asyncio.run(burst(base, int(count), screens))), flush=True)
