"""HTTP functions typed for the FastAPI extension: what the worker's HTTP v2 path does.

With ``azurefunctions-extensions-http-fastapi`` imported, the Python worker
hands an HTTP function a ``fastapi.Request`` (route values in
``path_params``) and sends back the FastAPI response it returns, streaming a
``StreamingResponse`` chunk by chunk. It refuses to index an HTTP function
typed otherwise once the extension is imported; so does :func:`check_app`.
Buffered functions (``func.HttpRequest``) stay on devhost's own path.
"""

from __future__ import annotations

import contextlib
import inspect
import sys
from typing import Any

from aiohttp import web

EXTENSION = "azurefunctions.extensions.http.fastapi"


def uses_v2(fn: Any, request_param: str) -> bool:
    """Whether ``fn`` takes a FastAPI (Starlette) request, as the worker reads its signature."""
    parameter = inspect.signature(fn).parameters.get(request_param)
    annotation = parameter.annotation if parameter is not None else None
    if not isinstance(annotation, type):
        return False
    from starlette.requests import Request

    return issubclass(annotation, Request)


def check_app(routes: list[Any]) -> None:
    """Refuse what the worker refuses: with the extension imported, every HTTP function
    must take a FastAPI request."""
    if EXTENSION not in sys.modules:
        return
    wrong = [r.name for r in routes if not uses_v2(r.func, r.request_param)]
    if wrong:
        raise TypeError(
            f"HTTP streaming is on ({EXTENSION} is imported) but these HTTP functions "
            f"do not take a fastapi.Request: {', '.join(sorted(wrong))}"
        )


def fastapi_request(request: web.Request, params: dict[str, str], body: bytes) -> Any:
    """The ``fastapi.Request`` the worker would build for ``request``."""
    from starlette.requests import Request

    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if delivered:
            return {"type": "http.disconnect"}
        delivered = True
        return {"type": "http.request", "body": body, "more_body": False}

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.raw_path.split("?", 1)[0].encode(),
        "query_string": request.query_string.encode(),
        "root_path": "",
        "headers": [(k.lower().encode(), v.encode()) for k, v in request.headers.items()],
        "server": (request.host.split(":")[0], request.url.port or 80),
        "client": (request.remote or "127.0.0.1", 0),
        "path_params": dict(params),
    }
    return Request(scope, receive)


async def send(response: Any, request: web.Request) -> web.StreamResponse:
    """Write a FastAPI response to aiohttp: buffered at once, streamed chunk by chunk."""
    from starlette.responses import StreamingResponse

    headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in response.raw_headers]
    if not isinstance(response, StreamingResponse):
        out = web.Response(status=response.status_code, body=response.body)
        _copy_headers(out, headers, skip={"content-length"})
        return out
    out = web.StreamResponse(status=response.status_code)
    _copy_headers(out, headers, skip={"content-length", "transfer-encoding"})
    await out.prepare(request)
    chunks = response.body_iterator
    try:
        async for chunk in chunks:
            await out.write(chunk.encode() if isinstance(chunk, str) else chunk)
    except ConnectionError:
        pass  # the client left: stop producing, as the worker's ASGI server does
    finally:
        closing = getattr(chunks, "aclose", None)
        if closing is not None:
            await closing()
    with contextlib.suppress(ConnectionError):
        await out.write_eof()
    return out


def _copy_headers(out: web.StreamResponse, headers: list[tuple[str, str]], skip: set[str]) -> None:
    for name, value in headers:
        if name.lower() not in skip:
            out.headers.add(name, value)
