"""Signed outbound webhooks: tell a caller's server that a session changed state.

Events: ``clarification_requested``, ``completed``, ``failed``, ``cancelled``.
Each POST carries the JSON of a :class:`WebhookEvent` and these headers:

- ``X-DeepResearch-Event``: the event name;
- ``X-DeepResearch-Delivery``: the event id, the same on every retry, so a
  receiver can drop duplicates (delivery is at least once: the sending
  activity itself may be retried by Durable);
- ``X-DeepResearch-Timestamp``: unix seconds when this attempt was signed;
- ``X-DeepResearch-Signature``: ``sha256=`` + hex HMAC-SHA256 of
  ``timestamp + "." + body`` with ``WEBHOOK_SECRET`` (absent when no secret is
  configured). Signing the timestamp lets receivers refuse replays.

The body's ``sequence`` numbers one session's events 1, 2, 3… in the order
they happened (``webhook_outbox.py`` records and sends them in that order), so
a receiver can order them even if its own processing reorders requests.

A receiver's trouble is never the research's trouble: :meth:`WebhookSender.deliver`
retries a few times within a fixed time budget and then returns a failed
delivery record instead of raising. Callback URLs pass the same SSRF guard as
page fetching, at start time and again on every attempt, through the same
:class:`~shared.fetch.pinned.PinnedTransport`: the host is resolved once per
attempt and the connection goes to the address that was checked.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
from collections.abc import Collection
from datetime import UTC, datetime
from typing import Literal

import httpx
from pydantic import BaseModel, Field

from shared.config import Settings
from shared.errors import FetchRefused, InvalidInputError, TransientError
from shared.fetch.guard import Resolver, check_url
from shared.fetch.pinned import PinnedTransport

log = logging.getLogger(__name__)

WebhookEventName = Literal["clarification_requested", "completed", "failed", "cancelled"]

SIGNATURE_PREFIX = "sha256="
RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})


class WebhookEvent(BaseModel):
    """The JSON body of one webhook call, recorded when the event happened.

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


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """``sha256=<hex HMAC-SHA256(secret, timestamp + "." + body)>``."""
    message = timestamp.encode("ascii") + b"." + body
    digest = hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()
    return SIGNATURE_PREFIX + digest


def verify(
    secret: str,
    timestamp: str,
    body: bytes,
    signature: str,
    tolerance_seconds: int = 300,
    now: float | None = None,
) -> bool:
    """True when ``signature`` is ours for this body and the timestamp is fresh.

    The comparison is constant-time; a timestamp further than
    ``tolerance_seconds`` from ``now`` (either way) is refused so a captured
    request cannot be replayed later.
    """
    try:
        sent_at = int(timestamp)
    except (TypeError, ValueError):
        return False
    current = time.time() if now is None else now
    if abs(current - sent_at) > tolerance_seconds:
        return False
    return hmac.compare_digest(sign(secret, timestamp, body), signature or "")


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
        self._secret = settings.webhook_secret.get_secret_value() if settings.webhook_secret else ""
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

        Record: ``{event_id, event, url, attempts, status_code, ok, error, delivered_at}``.
        """
        body = event.model_dump_json().encode("utf-8")
        if not self._secret:
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
            "url": url,
            "attempts": attempts,
            "status_code": status_code,
            "ok": error is None,
            "error": error,
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
            "X-DeepResearch-Event": event.event,
            "X-DeepResearch-Delivery": event.id,
            "X-DeepResearch-Timestamp": timestamp,
        }
        if self._secret:
            headers["X-DeepResearch-Signature"] = sign(self._secret, timestamp, body)
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
