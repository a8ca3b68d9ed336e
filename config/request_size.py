"""No request body larger than MAX_REQUEST_BYTES reaches Django. Django's ASGI handler reads the whole body to a
temporary file before any middleware runs, so the limit sits in front of it: a declared Content-Length over the limit
gets 413 at once, and a body that turns out longer (chunked) is cut off as a client disconnect."""

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Any, Any, Any], Awaitable[None]]

TOO_LARGE = "La petición es demasiado grande. / The request is too large.\n".encode()


async def too_large(send: Send) -> None:
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": TOO_LARGE})


def limit_request_size(app: ASGIApp, max_bytes: int) -> ASGIApp:
    async def limited(scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and (not declared.isdigit() or len(declared) > 18 or int(declared) > max_bytes):
            await too_large(send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > max_bytes:
                    await too_large(send)  # Django takes what follows for a client gone and answers nothing more
                    return {"type": "http.disconnect"}
            return message

        await app(scope, counted, send)

    return limited
