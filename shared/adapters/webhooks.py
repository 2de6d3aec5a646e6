"""Outbound webhooks as the Standard Webhooks specification has them (standardwebhooks.com).

Events: ``research.clarification_requested``, ``research.plan_ready``,
``research.completed``, ``research.failed``, ``research.cancelled``. Each POST:

- body, JSON, schema version :data:`BODY_VERSION`::

      {"type": "research.completed", "timestamp": "<ISO 8601, when it happened>",
       "version": 1,
       "data": {"event_id", "sequence", "session_id", "chat_id", "status", "links"}}

  ``data.sequence`` numbers one session's events 1, 2, 3… in the order they
  happened (``webhook_outbox.py`` records and sends them in that order).
  Fields may be added within a version; a change that removes or renames one
  bumps ``version``.
- ``webhook-id``: the event id, the same on every retry and redelivery, so a
  receiver drops duplicates (delivery is at least once);
- ``webhook-timestamp``: unix seconds when this attempt was signed;
- ``webhook-signature``: ``v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">``
  for each configured secret, space-separated; absent (with a warning in the
  log) when no secret is configured.

Secrets: ``WEBHOOK_SECRET`` holds one or more ``whsec_<base64>`` secrets
(24-64 bytes each) separated by spaces or commas. To rotate, add the new one
beside the old, let receivers switch, then remove the old: a receiver accepts
a request when any one signature matches.

A receiver's trouble is never the research's trouble: :meth:`WebhookSender.deliver`
retries a few times within a fixed time budget and then returns a failed
delivery record instead of raising. Callback URLs pass the same SSRF guard as
page fetching, at start time and again on every attempt, through the same
:class:`~shared.adapters.fetch.pinned.PinnedTransport`: the host is resolved once per
attempt and the connection goes to the address that was checked.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import logging
import re
import time
from collections.abc import Collection
from datetime import UTC, datetime
from typing import Literal

import httpx
from pydantic import BaseModel, Field, SecretStr

from shared.adapters.fetch.guard import Resolver, check_url
from shared.adapters.fetch.pinned import PinnedTransport
from shared.core.config import Settings
from shared.core.errors import ConfigurationError, FetchRefused, InvalidInputError, TransientError

log = logging.getLogger(__name__)

WebhookEventName = Literal[
    "clarification_requested", "plan_ready", "completed", "failed", "cancelled", "watch_update"
]

BODY_VERSION = 1
TYPE_PREFIX = "research."
SECRET_PREFIX = "whsec_"
SECRET_BYTES = (24, 64)
RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
MAX_ERROR_CHARS = 300  # a delivery record stays small in the session document


class WebhookEvent(BaseModel):
    """One event as the outbox records it when it happens (the wire body is :func:`body_of`).

    ``id`` is ``{session_id}:{event}`` (stable across retries); ``sequence`` is
    the event's place in its session, from 1 (the outbox always sets it);
    ``status`` and ``occurred_at`` are the session's at that moment.
    """

    id: str
    event: WebhookEventName
    sequence: int = Field(1, ge=1)
    session_id: str
    chat_id: str
    status: str
    links: dict[str, str] = Field(default_factory=dict)
    occurred_at: str
    # a watch's update (``research.watch_update``): which watch, what changed, said shortly
    watch_id: str | None = None
    changes: dict | None = None
    summary: str | None = None


def body_of(event: WebhookEvent) -> bytes:
    """The JSON body a receiver gets for ``event`` (see the module docstring)."""
    body = {
        "type": TYPE_PREFIX + event.event,
        "timestamp": event.occurred_at,
        "version": BODY_VERSION,
        "data": {
            "event_id": event.id,
            "sequence": event.sequence,
            "session_id": event.session_id,
            "chat_id": event.chat_id,
            "status": event.status,
            "links": event.links,
        },
    }
    if event.watch_id is not None:
        body["data"] |= {"watch_id": event.watch_id, "changes": event.changes}
        body["data"]["summary"] = event.summary
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def signing_keys(secret: SecretStr | None) -> list[bytes]:
    """The HMAC keys in ``WEBHOOK_SECRET``; ConfigurationError naming it when one is malformed."""
    if secret is None:
        return []
    keys = []
    for item in re.split(r"[\s,]+", secret.get_secret_value().strip()):
        if not item:
            continue
        if not item.startswith(SECRET_PREFIX):
            raise ConfigurationError(
                "WEBHOOK_SECRET: each secret must be whsec_<base64> (Standard Webhooks)"
            )
        encoded = item[len(SECRET_PREFIX) :]
        try:
            key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ConfigurationError("WEBHOOK_SECRET: a secret is not valid base64") from exc
        if not SECRET_BYTES[0] <= len(key) <= SECRET_BYTES[1]:
            raise ConfigurationError(
                f"WEBHOOK_SECRET: each secret must decode to {SECRET_BYTES[0]}-{SECRET_BYTES[1]} "
                f"bytes, not {len(key)}"
            )
        keys.append(key)
    return keys


def sign(keys: list[bytes], msg_id: str, timestamp: str, body: bytes) -> str:
    """``webhook-signature``: ``v1,<base64 HMAC-SHA256>`` per key, space-separated."""
    message = f"{msg_id}.{timestamp}.".encode() + body
    return " ".join(
        "v1," + base64.b64encode(hmac.new(key, message, hashlib.sha256).digest()).decode("ascii")
        for key in keys
    )


def validate_callback_url(url: str, allowed_hosts: Collection[str]) -> None:
    """Raise InvalidInputError (HTTP 422) unless ``url`` may receive webhooks.

    http/https only, and the SSRF guard must accept it: no private, loopback,
    link-local or metadata addresses unless the host is in ``allowed_hosts``
    (``WEBHOOK_ALLOWED_HOSTS``). A temporary DNS failure is a TransientError,
    not the client's fault, and is left to propagate.
    """
    try:
        check_url(url, allowed_hosts)
    except FetchRefused as exc:
        raise InvalidInputError(
            f"callback_url is not acceptable: {exc}",
            details=[{"loc": ["callback_url"], "msg": str(exc), "type": "value_error"}],
        ) from exc


class WebhookSender:
    """Delivers :class:`WebhookEvent` s with bounded retries; never raises for the receiver.

    Defaults: at most 4 attempts, backoff 0.5 s, 1 s, 2 s (or the receiver's
    ``Retry-After``, capped), connect timeout 3 s, read timeout 5 s, and no
    new attempt once 15 s have passed (each attempt's timeouts are cut to what is
    left of the budget; httpx's read timeout is per read, so a receiver that
    trickles bytes can still stretch the last attempt). Redirects are not followed (a redirect
    could point past the SSRF guard). ``resolver`` and ``network`` are for tests
    (a scripted DNS and network under the pinned transport).
    """

    def __init__(
        self,
        settings: Settings,
        *,
        max_attempts: int = 4,
        backoff_seconds: float = 0.5,
        budget_seconds: float = 15.0,
        connect_timeout: float = 3.0,
        read_timeout: float = 5.0,
        resolver: Resolver | None = None,
        network: httpx.BaseTransport | None = None,
    ) -> None:
        self._keys = signing_keys(settings.webhook_secret)
        self._allowed_hosts = Settings.split_list(settings.webhook_allowed_hosts)
        self._max_attempts = max(1, max_attempts)
        self._backoff = backoff_seconds
        self._budget = budget_seconds
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._resolver = resolver
        self._network = network

    def deliver(self, url: str, event: WebhookEvent) -> dict:
        """POST ``event`` to ``url``; returns the delivery record kept in the session.

        Record: ``{event_id, event, attempts, status_code, ok, error, delivered_at}``
        (``delivered_at``: when the last attempt ended, delivered or not). No URL:
        the session holds its ``callback_url`` once, not once per delivery. The
        error never names an address the callback host resolved to (the guard's
        messages do not).
        """
        body = body_of(event)
        if not self._keys:
            log.warning("WEBHOOK_SECRET is not set: webhook %s is unsigned", event.id)
        started = time.monotonic()
        attempts, status_code, error = 0, None, None
        with self._client() as client:
            while attempts < self._max_attempts:
                remaining = self._budget - (time.monotonic() - started)
                if attempts and remaining <= 0:
                    break
                attempts += 1
                timeout = httpx.Timeout(
                    min(self._read_timeout, max(remaining, 0.1)),
                    connect=min(self._connect_timeout, max(remaining, 0.1)),
                )
                status_code, error, retry_after = self._attempt(client, url, event, body, timeout)
                if error is None or retry_after is None or attempts >= self._max_attempts:
                    break
                pause = self._pause(attempts, retry_after)
                if time.monotonic() - started + pause >= self._budget:
                    break
                time.sleep(pause)
        record = {
            "event_id": event.id,
            "event": event.event,
            "attempts": attempts,
            "status_code": status_code,
            "ok": error is None,
            "error": error[:MAX_ERROR_CHARS] if error else None,
            "delivered_at": datetime.now(UTC).isoformat(),
        }
        if error is not None:
            log.warning("webhook %s failed after %d attempt(s)", event.id, attempts)
        return record

    def _client(self) -> httpx.Client:
        # Timeouts are set per attempt so the last one cannot outlive the budget.
        # trust_env=False: an environment proxy would connect by name, past the pin.
        transport = PinnedTransport(
            self._allowed_hosts, resolver=self._resolver, network=self._network
        )
        return httpx.Client(follow_redirects=False, transport=transport, trust_env=False)

    def _attempt(
        self,
        client: httpx.Client,
        url: str,
        event: WebhookEvent,
        body: bytes,
        timeout: httpx.Timeout,
    ) -> tuple[int | None, str | None, float | None]:
        """One POST: ``(status_code, error or None, retry delay hint or None if final)``.

        A retry hint of ``0.0`` means "retry with the normal backoff". The
        transport checks ``url`` with the SSRF guard before connecting.
        """
        timestamp = str(int(time.time()))
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "deep-research-webhooks/1",
            "webhook-id": event.id,
            "webhook-timestamp": timestamp,
        }
        if self._keys:
            headers["webhook-signature"] = sign(self._keys, event.id, timestamp, body)
        try:
            response = client.post(url, content=body, headers=headers, timeout=timeout)
        except FetchRefused as exc:
            return None, f"refused: {exc}", None
        except TransientError as exc:
            return None, f"transient: {exc}", 0.0
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            return None, f"{type(exc).__name__}: {exc}", 0.0
        if response.is_success:
            return response.status_code, None, None
        error = f"HTTP {response.status_code}"
        if response.status_code in RETRY_STATUSES:
            return response.status_code, error, _retry_after(response)
        return response.status_code, error, None

    def _pause(self, attempts: int, retry_after: float) -> float:
        backoff = self._backoff * (2 ** (attempts - 1))
        return min(max(backoff, retry_after), 5.0)


def _retry_after(response: httpx.Response) -> float:
    """Seconds from a numeric ``Retry-After`` header, 0.0 when absent or a date."""
    value = response.headers.get("Retry-After", "").strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        return 0.0
