"""What the HTTP search providers share: a client, and their errors translated once.

429/5xx/timeouts become ``TransientError`` (with ``retry_after``) and other
4xx ``PermanentError`` in exactly one place, for Tavily, SearXNG and Brave
alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from shared.adapters.fetch.http import parse_retry_after
from shared.core.errors import PermanentError, TransientError

PROVIDER_TIMEOUT_SECONDS = 20.0


def raise_for_status(response: httpx.Response, provider: str) -> None:
    """Map an HTTP error status to our errors: 429/5xx transient, other 4xx permanent."""
    status = response.status_code
    if status < 400:
        return
    if status == 429 or status >= 500:
        raise TransientError(
            f"{provider} answered HTTP {status}",
            retry_after=parse_retry_after(
                response.headers.get("retry-after")
                or response.headers.get("x-ratelimit-reset", "").split(",")[0]
            ),
        )
    raise PermanentError(f"{provider} answered HTTP {status}: {response.text[:200]}")


@contextmanager
def transport_errors(provider: str) -> Iterator[None]:
    """Translate httpx transport failures and unreadable JSON raised inside the block."""
    try:
        yield
    except httpx.TimeoutException as exc:
        raise TransientError(f"{provider} timed out") from exc
    except httpx.TransportError as exc:
        raise TransientError(f"{provider} unreachable: {exc}") from exc
    except ValueError as exc:  # JSON decoding
        raise TransientError(f"{provider} sent an unreadable response: {exc}") from exc


def http_client(timeout: float = PROVIDER_TIMEOUT_SECONDS) -> httpx.Client:
    """A client for a configured provider endpoint (trusted, so no SSRF guard here)."""
    return httpx.Client(timeout=httpx.Timeout(timeout))
