"""Errors at the HTTP edge: one JSON shape, one mapping from our error hierarchy.

    {"error": {"code": "...", "message": "...", "details": [...]}}

400 malformed JSON · 401 no verified caller (``unauthorized``, with
``WWW-Authenticate: Bearer``) · 413 body over 64 KB · 422 validation · 404
unknown, or someone else's · 409 conflict (``active_session`` when the chat
already runs a deep research, with the active session's id in ``details`` so
a client can cancel or follow it) · 429 a quota of the caller's is used up
(``quota_exceeded``, with ``Retry-After``; ``details`` names the quota, its
limit, what is used and when it frees), or one thing was asked for too often
(``rate_limited``, with ``Retry-After``; ``details`` names the limit) · 503
transient store trouble, with ``Retry-After``. A client mistake never becomes a 5xx.

Every response of a ``handled`` route (JSON, reports, PDF, events) carries
``X-Content-Type-Options: nosniff`` (``EDGE_HEADERS``): a browser must take a
Markdown report or a JSON body for what it says it is, never sniff it into HTML.
"""

from __future__ import annotations

import functools
import json
import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import azure.functions as func
from pydantic import ValidationError

from shared.adapters.stores.base import validate_session_id
from shared.core.errors import (
    ActiveSessionConflict,
    ConfigurationError,
    ConflictError,
    InvalidInputError,
    NotFoundError,
    QuotaExceeded,
    RateLimited,
    TransientError,
    UnauthorizedError,
)
from shared.usecases.access import public_chat_id

log = logging.getLogger(__name__)
MAX_BODY_BYTES = 64 * 1024
EDGE_HEADERS = {"X-Content-Type-Options": "nosniff"}


class HttpError(Exception):
    def __init__(self, status: int, code: str, message: str, details: list | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.details = status, code, details or []


def error_response(
    status: int, code: str, message: str, details: list | None = None, headers: dict | None = None
):
    body = {"error": {"code": code, "message": message, "details": details or []}}
    return func.HttpResponse(
        json.dumps(body),
        status_code=status,
        mimetype="application/json",
        headers={**EDGE_HEADERS, **(headers or {})},
    )


def json_response(body: object, status: int = 200, headers: dict | None = None):
    """A JSON body; ``handled`` adds the edge headers every route's response carries."""
    return func.HttpResponse(
        json.dumps(body, default=str),
        status_code=status,
        mimetype="application/json",
        headers=headers,
    )


def read_json(req: func.HttpRequest) -> dict:
    """The request body as a JSON object, or an HttpError (413 / 400)."""
    body = req.get_body() or b""
    if len(body) > MAX_BODY_BYTES:
        raise HttpError(413, "payload_too_large", f"request body is over {MAX_BODY_BYTES} bytes")
    try:
        data = json.loads(body or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise HttpError(400, "malformed_json", f"request body is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise HttpError(400, "malformed_json", "request body must be a JSON object")
    return data


def route_session_id(req: func.HttpRequest) -> str:
    """The ``{session_id}`` route value; a malformed id is an unknown session (404)."""
    return known_session_id(req.route_params.get("session_id", ""))


def known_session_id(session_id: str) -> str:
    """``session_id`` if well formed; otherwise NotFoundError, as for an unknown one."""
    try:
        return validate_session_id(session_id)
    except InvalidInputError as exc:
        raise NotFoundError(f"unknown session {session_id!r}") from exc


def _details(exc: ValidationError) -> list[dict]:
    return [{"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]} for e in exc.errors()]


@dataclass(frozen=True)
class ClientError:
    """What a caller is told about a failure: the same for an HTTP route and an MCP tool."""

    status: int
    code: str
    message: str
    details: list = field(default_factory=list)
    headers: dict | None = None


def classify(exc: Exception, where: str) -> ClientError:
    """Our error hierarchy, mapped once; anything unexpected is logged and kept vague."""
    if isinstance(exc, HttpError):
        return ClientError(exc.status, exc.code, str(exc), exc.details)
    if isinstance(exc, ValidationError):
        fields = ", ".join(".".join(str(p) for p in e["loc"]) for e in exc.errors())
        return ClientError(422, "validation_error", f"invalid fields: {fields}", _details(exc))
    if isinstance(exc, InvalidInputError):
        return ClientError(422, "validation_error", str(exc), exc.details)
    if isinstance(exc, ConfigurationError):  # the message names the setting to fix
        return ClientError(400, "configuration_error", str(exc))
    if isinstance(exc, UnauthorizedError):
        return ClientError(401, "unauthorized", str(exc), headers={"WWW-Authenticate": "Bearer"})
    if isinstance(exc, NotFoundError):
        return ClientError(404, "not_found", str(exc))
    if isinstance(exc, ActiveSessionConflict):
        chat_id = public_chat_id(exc.chat_id)
        details = [{"chat_id": chat_id, "active_session_id": exc.active_session_id}]
        message = f"chat {chat_id!r} already has an active deep research session"
        return ClientError(409, "active_session", message, details)
    if isinstance(exc, ConflictError):
        return ClientError(409, "conflict", str(exc))
    if isinstance(exc, QuotaExceeded):
        return quota_error(exc)
    if isinstance(exc, RateLimited):
        retry = {"Retry-After": str(max(1, math.ceil(exc.retry_after)))}
        return ClientError(429, "rate_limited", str(exc), exc.details, headers=retry)
    if isinstance(exc, TransientError):
        log.warning("transient failure in %s: %s", where, exc)
        message = "temporarily unavailable; retry shortly"
        return ClientError(503, "unavailable", message, headers={"Retry-After": "1"})
    log.error("unhandled error in %s", where, exc_info=exc)
    return ClientError(500, "internal_error", "internal error; see the server log")


def quota_error(exc: QuotaExceeded) -> ClientError:
    """429 naming the quota: what a client needs to wait, or to end something first."""
    detail = {
        "quota": exc.quota,
        "limit": exc.limit,
        "used": exc.used,
        "frees": exc.frees,
        "frees_at": exc.frees_at.isoformat() if exc.frees_at else None,
        "retry_after_seconds": exc.retry_after,
    }
    headers = {"Retry-After": str(exc.retry_after)}
    return ClientError(429, "quota_exceeded", str(exc), [detail], headers)


def handled(fn: Callable[..., Awaitable[func.HttpResponse]]):
    """Map our errors to HTTP (``classify``); a client mistake never becomes a 5xx.

    Whatever the route returns gets the ``EDGE_HEADERS`` it does not set itself.
    """

    @functools.wraps(fn)
    async def wrapper(*args, **kwargs) -> func.HttpResponse:
        try:
            response = await fn(*args, **kwargs)
        except Exception as exc:
            error = classify(exc, fn.__name__)
            return error_response(
                error.status, error.code, error.message, error.details, error.headers
            )
        for name, value in EDGE_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    return wrapper
