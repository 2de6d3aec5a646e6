"""One aiohttp request served by an ASGI application (the MCP SDK's transports are ASGI).

devhost's front is aiohttp; the official MCP SDK serves streamable HTTP and SSE
as ASGI callables. This bridge hands one request to one of them: the body as a
single ``http.request`` message, the response streamed back as the
application sends it (SSE streams stay open). ``receive`` answers
``http.disconnect`` once the response is complete or the client has gone, as
an ASGI server does; the SDK's SSE responses wait on exactly that. Writes
after the client has gone are dropped, as uvicorn (the SDK's own server)
drops them.

Why not the ``aiohttp-asgi`` package: its ``receive`` keeps answering empty
``http.request`` messages after the body instead of waiting for the
disconnect, so an SSE response that listens for it spins a CPU.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from aiohttp import web

from devhost.guard import BodyTooLarge, read_capped, refuse_body

Message = MutableMapping[str, Any]
ASGIApp = Callable[
    [Message, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]],
    Awaitable[None],
]
DISCONNECT_CHECK_SECONDS = 1.0


async def serve_asgi(app: ASGIApp, request: web.Request, max_body_bytes: int) -> web.StreamResponse:
    """Run ``app`` for ``request``; its response, streamed (an empty 500 if it sent none).

    A body over ``max_body_bytes`` is 413, and ``app`` never runs: reading stops at the cap.
    """
    try:
        body = await read_capped(request, max_body_bytes)
    except BodyTooLarge:
        return await refuse_body(request, max_body_bytes)
    finished = asyncio.Event()
    body_given = False
    response: web.StreamResponse | None = None

    async def receive() -> Message:
        nonlocal body_given
        if not body_given:
            body_given = True
            return {"type": "http.request", "body": body, "more_body": False}
        while not finished.is_set() and not _gone(request):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(finished.wait(), DISCONNECT_CHECK_SECONDS)
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        try:
            await _send(message)
        except ConnectionResetError:  # the client left: drop the rest, as uvicorn does
            finished.set()

    async def _send(message: Message) -> None:
        nonlocal response
        if finished.is_set():
            return
        if message["type"] == "http.response.start":
            response = web.StreamResponse(status=message["status"])
            for name, value in message.get("headers", ()):
                response.headers.add(name.decode("latin-1"), value.decode("latin-1"))
            if "Content-Length" not in response.headers:
                response.enable_chunked_encoding()
            await response.prepare(request)
        elif message["type"] == "http.response.body" and response is not None:
            await response.write(message.get("body", b""))
            if not message.get("more_body", False):
                await response.write_eof()
                finished.set()

    try:
        await app(_scope(request), receive, send)
    finally:
        finished.set()
    return response if response is not None else web.Response(status=500)


def _gone(request: web.Request) -> bool:
    transport = request.transport
    return transport is None or transport.is_closing()


def _scope(request: web.Request) -> Message:
    host, port = (request.url.host or "127.0.0.1"), (request.url.port or 80)
    peer = request.transport.get_extra_info("peername") if request.transport else None
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": f"{request.version.major}.{request.version.minor}",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.raw_path.split("?", 1)[0].encode("latin-1"),
        "query_string": request.query_string.encode("latin-1"),
        "root_path": "",
        "headers": [(k.lower(), v) for k, v in request.raw_headers],
        "client": (peer[0], peer[1]) if peer else None,
        "server": (host, port),
    }
