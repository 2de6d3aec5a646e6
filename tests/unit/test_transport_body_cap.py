"""The streamed transport (HTTP_STREAMING=true in Azure) stops reading a body at the cap.

There the worker hands the app a FastAPI request whose body is still arriving;
``api.transport.read_capped`` takes it chunk by chunk and gives up at
``MAX_BODY_BYTES`` (the wrapper then answers 413 without calling the handler).
The request here is Starlette's own, fed by an ASGI ``receive`` that counts
what was taken from it.
"""

from __future__ import annotations

import asyncio

from starlette.requests import Request

from api.errors import MAX_BODY_BYTES
from api.transport import read_capped

CHUNK = 8 * 1024


def request_of(total: int, headers: list[tuple[bytes, bytes]] | None = None):
    taken = {"bytes": 0}

    async def receive() -> dict:
        size = min(CHUNK, total - taken["bytes"])
        taken["bytes"] += size
        more = taken["bytes"] < total
        return {"type": "http.request", "body": b"x" * size, "more_body": more}

    scope = {"type": "http", "method": "POST", "path": "/", "headers": headers or []}
    return Request(scope, receive), taken


def test_a_body_over_the_cap_is_refused_after_reading_only_up_to_it() -> None:
    request, taken = request_of(100 * MAX_BODY_BYTES)

    assert asyncio.run(read_capped(request, MAX_BODY_BYTES)) is None
    assert taken["bytes"] <= MAX_BODY_BYTES + CHUNK


def test_a_declared_length_over_the_cap_is_refused_before_reading() -> None:
    declared = [(b"content-length", str(MAX_BODY_BYTES + 1).encode())]
    request, taken = request_of(MAX_BODY_BYTES + 1, declared)

    assert asyncio.run(read_capped(request, MAX_BODY_BYTES)) is None
    assert taken["bytes"] == 0


def test_a_body_at_the_cap_is_read_whole() -> None:
    request, _ = request_of(MAX_BODY_BYTES)

    assert asyncio.run(read_capped(request, MAX_BODY_BYTES)) == b"x" * MAX_BODY_BYTES
