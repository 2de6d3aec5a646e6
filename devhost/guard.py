"""What devhost lets in: requests from this machine's own pages and tools, nothing cross-site.

devhost listens on loopback, but any web page a developer visits can still
reach it through the browser: a ``text/plain`` form POST from another site,
or a page whose host name is rebound to 127.0.0.1 (DNS rebinding). Either
could start paid runs. So every request, on every path devhost serves (the
app's routes, the MCP endpoint, the Durable management URLs), passes the
rules the MCP SDK applies to a loopback server, answered in the app's JSON
error shape:

- ``Host`` must name loopback: ``localhost``, ``127.0.0.1``, ``[::1]`` (any
  loopback address), any port; else 421. A rebound name fails here.
- ``Origin``, when a browser sends one, must be an ``http``/``https`` origin on
  a loopback host (any port, as for the MCP endpoint); else 403. The web page
  devhost serves is same-origin, so it passes.
- A request with a body must declare ``Content-Type: application/json`` (or a
  ``+json`` type); else 415. No HTML form can send that, and a cross-site
  ``fetch`` cannot send it without a CORS preflight, which devhost never
  grants. A POST without a body (cancel) needs no type. The one exception is a
  document upload (``multipart/form-data``), which an HTML form can send: it is let
  in only with an ``X-Requested-With`` header, which no form can set and a cross-site
  ``fetch`` cannot send without the preflight devhost never grants.

Request bodies are read by :func:`read_capped`, which stops at the cap.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from aiohttp import hdrs, web

LOOPBACK_NAMES = frozenset({"localhost"})
JSON_TYPES = ("application/json",)
UPLOAD_TYPE = "multipart/form-data"
UPLOAD_HEADER = "X-Requested-With"  # a custom header: cross-site, only after a preflight
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class BodyTooLarge(Exception):
    """The request body is over the cap; nothing past the cap was read."""


def error_response(status: int, code: str, message: str) -> web.Response:
    """The app's error shape (``api.errors``), for what devhost refuses itself."""
    body = {"error": {"code": code, "message": message, "details": []}}
    return web.Response(
        status=status,
        text=json.dumps(body),
        content_type="application/json",
        headers={"X-Content-Type-Options": "nosniff"},
    )


@web.middleware
async def loopback_only(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Refuse a foreign Host (421), a foreign Origin (403) or a non-JSON body (415)."""
    host = request.headers.get(hdrs.HOST, "")
    if not is_loopback_host(host):
        message = (
            "devhost answers only to loopback host names "
            f"(localhost, 127.0.0.1, [::1]), not {host!r}"
        )
        return error_response(421, "misdirected_request", message)
    origin = request.headers.get(hdrs.ORIGIN)
    if origin is not None and not is_loopback_origin(origin):
        message = f"cross-site requests are refused: origin {origin!r} is not this machine"
        return error_response(403, "forbidden_origin", message)
    content_type = request.headers.get(hdrs.CONTENT_TYPE, "")
    if request.body_exists and is_upload(content_type) and UPLOAD_HEADER not in request.headers:
        message = f"a {UPLOAD_TYPE} upload must carry an {UPLOAD_HEADER} header"
        return error_response(403, "forbidden_upload", message)
    if request.body_exists and not (is_json(content_type) or is_upload(content_type)):
        found = request.headers.get(hdrs.CONTENT_TYPE) or "none"
        message = f"request bodies must be sent as Content-Type: application/json (got {found})"
        return error_response(415, "unsupported_media_type", message)
    return await handler(request)


def is_loopback_host(host: str) -> bool:
    """Whether a ``Host`` header value (name or address, optional port) names loopback."""
    name = _host_name(host)
    if name is None:
        return False
    if name.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def is_loopback_origin(origin: str) -> bool:
    """Whether an ``Origin`` header is a web origin on a loopback host (``null`` is not)."""
    try:
        parts = urlsplit(origin)
    except ValueError:  # e.g. an unclosed IPv6 bracket
        return False
    if parts.scheme not in ("http", "https") or parts.path or parts.query or parts.username:
        return False
    return is_loopback_host(parts.netloc)


def _host_name(host: str) -> str | None:
    """The name or address in ``host`` (``[::1]:80`` -> ``::1``), or None when malformed."""
    host = host.strip()
    if host.startswith("["):
        end = host.find("]")
        rest = host[end + 1 :]
        if end < 0 or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        return host[1:end]
    name, colon, port = host.partition(":")
    if not name or (colon and not port.isdigit()):
        return None
    return name


def is_upload(content_type: str) -> bool:
    return content_type.split(";", 1)[0].strip().lower() == UPLOAD_TYPE


def is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media in JSON_TYPES or (media.startswith("application/") and media.endswith("+json"))


async def read_capped(request: web.Request, limit: int) -> bytes:
    """The request body, read chunk by chunk; ``BodyTooLarge`` as soon as it passes ``limit``.

    A declared ``Content-Length`` over the cap is refused before reading a byte.
    """
    if request.content_length is not None and request.content_length > limit:
        raise BodyTooLarge
    body = bytearray()
    async for chunk in request.content.iter_any():
        body.extend(chunk)
        if len(body) > limit:
            raise BodyTooLarge
    return bytes(body)


async def refuse_body(request: web.Request, limit: int, named: str = "") -> web.StreamResponse:
    """Answer 413 and close the connection, so the rest of the body is never read.

    aiohttp would otherwise read (and drop) what the client still sends, for up
    to ten seconds, to keep the connection alive.
    """
    over = f"{named} ({limit} bytes)" if named else f"{limit} bytes"
    response = error_response(413, "payload_too_large", f"request body is over {over}")
    response.force_close()
    await response.prepare(request)
    await response.write_eof()
    if request.protocol is not None:
        request.protocol.force_close()
    return response
