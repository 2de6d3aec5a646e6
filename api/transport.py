"""One handler, two HTTP transports: buffered (the default) or streamed.

The Python worker streams HTTP responses only through the FastAPI extension
(``azurefunctions-extensions-http-fastapi``), and importing that extension
switches the whole app to it: the worker then accepts an HTTP function only
if its request parameter is typed ``fastapi.Request`` and its return type is
a FastAPI response (``azure_functions_worker/bindings/meta.py`` checks every
HTTP trigger against the extension once it is imported). So the choice is
made once, at import, by ``HTTP_STREAMING``:

- off: every handler is registered as written (``func.HttpRequest`` in,
  ``func.HttpResponse`` out) and the events stream is long-polling;
- on: the extension is imported and :func:`http_function` registers each
  handler behind a wrapper typed for it, which hands the handler the same
  ``func.HttpRequest`` and turns its ``func.HttpResponse`` into a FastAPI one.
  A handler may also return a FastAPI response itself (the events stream
  returns a ``StreamingResponse`` that stays open until the session ends).

The streamed path reads the request body itself, chunk by chunk, and stops
at ``MAX_BODY_BYTES``: a larger body is a 413 before the handler runs, and
the rest is never read. A route registered with :func:`large_body` (the
documents upload) reads up to its own cap instead, a setting read per request.

This is the one setting read at import, because the worker indexes the
functions' signatures before any of them runs. Azure also needs
``PYTHON_ENABLE_INIT_INDEXING=1`` for the extension (infra sets both).
"""

from __future__ import annotations

import inspect
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import azure.functions as func

from api.errors import MAX_BODY_BYTES, error_response

STREAMING_SETTING = "HTTP_STREAMING"
STREAMING = os.environ.get(STREAMING_SETTING, "").strip().lower() in ("1", "true", "yes")

if STREAMING:  # importing it is what turns the worker's HTTP streaming on
    from azurefunctions.extensions.http.fastapi import Request, Response, StreamingResponse

Handler = Callable[..., Awaitable[func.HttpResponse] | func.HttpResponse]
# A route's own body cap, read per request, and the name of the limit a 413 names.
BodyCap = Callable[[], tuple[int, str]]


def large_body(cap: BodyCap) -> Callable[[Handler], Any]:
    """:func:`http_function` for a route whose body may pass ``MAX_BODY_BYTES`` (uploads).

    Only the streamed path needs it: buffered, the host hands over the body it read
    (devhost and Azure apply their own request caps), and the handler checks sizes."""
    return lambda handler: http_function(handler, cap)


def http_function(handler: Handler, cap: BodyCap | None = None) -> Any:
    """Register ``handler`` as it is, or (streaming) behind a FastAPI-typed wrapper.

    Place it under ``@bp.route`` and ``@bp.durable_client_input``: the worker
    reads the wrapper's ``__signature__`` (the way azure-functions registers
    MCP tool wrappers), so the handler's own ``func.HttpRequest`` annotation
    stays out of sight."""
    if not STREAMING:
        return handler

    async def wrapper(req: Request, **bindings: Any) -> Response:
        limit, named = cap() if cap is not None else (MAX_BODY_BYTES, "")
        buffered = await _buffered(req, limit)
        if buffered is None:
            return _fastapi_response(_too_large(limit, named))
        result = handler(buffered, **bindings)
        if inspect.isawaitable(result):
            result = await result
        return result if isinstance(result, Response) else _fastapi_response(result)

    parameters = list(inspect.signature(handler).parameters.values())
    first, rest = parameters[0], parameters[1:]
    wrapper.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [first.replace(annotation=Request), *rest], return_annotation=Response
    )
    wrapper.__name__ = handler.__name__
    wrapper.__qualname__ = handler.__qualname__
    wrapper.__doc__ = handler.__doc__
    wrapper.__module__ = handler.__module__
    return wrapper


def event_stream(chunks: AsyncIterator[str], headers: dict[str, str]) -> Any:
    """A ``text/event-stream`` response that sends each chunk as it comes (streaming only)."""
    assert STREAMING, "a streamed response needs HTTP_STREAMING=true"
    return StreamingResponse(chunks, media_type="text/event-stream", headers=headers)


def _too_large(limit: int, named: str) -> func.HttpResponse:
    if not named:
        message = f"request body is over {limit} bytes"
        return error_response(413, "payload_too_large", message)
    message = f"request body is over {named} ({limit})"
    details = [{"limit": named, "value": limit}]
    return error_response(413, "payload_too_large", message, details)


async def _buffered(req: Request, limit: int) -> func.HttpRequest | None:
    """``req`` as the handlers take it; None when its body is over ``limit``."""
    body = await read_capped(req, limit)
    if body is None:
        return None
    return func.HttpRequest(
        method=req.method,
        url=str(req.url),
        headers=dict(req.headers),
        params=dict(req.query_params),
        route_params={k: str(v) for k, v in req.path_params.items()},
        body=body,
    )


async def read_capped(req: Any, limit: int) -> bytes | None:
    """The body of a Starlette request, or None as soon as it passes ``limit`` bytes.

    A declared ``Content-Length`` over the cap is refused before reading a byte.
    """
    declared = req.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    body = bytearray()
    async for chunk in req.stream():
        body.extend(chunk)
        if len(body) > limit:
            return None
    return bytes(body)


def _fastapi_response(response: func.HttpResponse) -> Response:
    body = response.get_body()
    headers = {k: v for k, v in response.headers.items() if k.lower() != "content-type"}
    media_type = response.mimetype if body or response.status_code not in (204, 304) else None
    if media_type and response.charset and media_type.startswith(("text/", "application/json")):
        media_type = f"{media_type}; charset={response.charset}"
    return Response(
        content=body, status_code=response.status_code, headers=headers, media_type=media_type
    )
