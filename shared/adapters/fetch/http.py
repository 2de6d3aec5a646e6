"""``HttpFetcher``: fetch one http(s) page safely and return its main text.

Safety properties, in the order a request meets them:

- every URL, the first and each redirect target, passes the SSRF guard
  right before it is requested, and the connection goes to the address the
  guard checked (``pinned.PinnedTransport``, shared with the webhook sender:
  one lookup, no DNS rebinding, ``Host`` and TLS server name still the real
  name); redirects are followed by hand, at most ``MAX_REDIRECTS``; hosts in
  ``FETCH_ALLOWED_HOSTS`` are trusted and connected by name;
- connect/read timeouts plus an overall deadline per response, so a slow
  drip cannot hold a worker;
- only HTML and plain text are read; the size cap is enforced while
  streaming (a lying or missing Content-Length does not help);
- the charset comes from the header, then a ``<meta>`` tag, then
  charset-normalizer's guess, then UTF-8 with replacement characters.

Errors: 429, 5xx, timeouts and connection failures are ``TransientError``
(with ``retry_after`` from ``Retry-After``); other 4xx, wrong types and
oversize pages are ``PermanentError``; the guard raises ``FetchRefused``.
"""

from __future__ import annotations

import codecs
import re
import time
from email.utils import parsedate_to_datetime
from urllib.parse import urljoin

import httpx
from charset_normalizer import from_bytes

from shared.adapters.fetch.extract import cap_text, extract_main_text, links_of
from shared.adapters.fetch.guard import Resolver
from shared.adapters.fetch.pinned import PinnedTransport
from shared.core.config import Settings
from shared.core.errors import PermanentError, TransientError
from shared.core.source_models import Page

MAX_REDIRECTS = 5
ALLOWED_CONTENT_TYPES = frozenset({"text/html", "application/xhtml+xml", "text/plain"})
USER_AGENT = "deep-research-functions/0.1 (research fetcher)"
_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE
)
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


class HttpFetcher:
    """The http(s) ``Fetcher``; one httpx client per instance, safe to share across threads."""

    def __init__(
        self,
        settings: Settings,
        *,
        resolver: Resolver | None = None,
        network: httpx.BaseTransport | None = None,
    ) -> None:
        """``resolver`` / ``network``: scripted DNS and network for tests (PinnedTransport)."""
        self.max_bytes = settings.fetch_max_bytes
        self.timeout = settings.fetch_timeout_seconds
        self.allowed_hosts = Settings.split_list(settings.fetch_allowed_hosts)
        self._client = httpx.Client(
            transport=PinnedTransport(self.allowed_hosts, resolver=resolver, network=network),
            timeout=httpx.Timeout(self.timeout),
            follow_redirects=False,
            trust_env=False,  # a proxy from the environment would bypass address pinning
            headers={"User-Agent": USER_AGENT, "Accept": "text/html,text/plain;q=0.9"},
        )

    def close(self) -> None:
        self._client.close()

    def fetch(self, url: str) -> Page:
        return self.fetch_with_links(url, links=False)[0]

    def fetch_with_links(self, url: str, links: bool = True) -> tuple[Page, list[str]]:
        """The page and (HTML only, when asked) the absolute http(s) links it holds: a crawl
        reads them to go on; a research fetch never pays for them."""
        current = url
        for _hop in range(MAX_REDIRECTS + 1):
            got = self._get(current, links)
            if not isinstance(got, str):
                page, found = got
                return page.model_copy(update={"url": url, "final_url": current}), found
            current = urljoin(current, got)
        raise PermanentError(f"more than {MAX_REDIRECTS} redirects starting at {url}")

    def _get(self, url: str, links: bool = False) -> tuple[Page, list[str]] | str:
        """One hop: the page, or the redirect target to check next.

        The transport checks ``url`` with the SSRF guard (``FetchRefused`` /
        ``TransientError`` from the DNS lookup pass through unchanged).
        """
        try:
            request = self._client.build_request("GET", url)
        except httpx.InvalidURL as exc:
            raise PermanentError(f"malformed URL {url!r}: {exc}") from exc
        try:
            response = self._client.send(request, stream=True)
        except httpx.TimeoutException as exc:
            raise TransientError(f"timed out connecting to {url}") from exc
        except httpx.TransportError as exc:
            raise TransientError(f"connection to {url} failed: {exc}") from exc
        try:
            return self._read(url, response, links)
        except httpx.TimeoutException as exc:
            raise TransientError(f"timed out reading {url}") from exc
        except httpx.TransportError as exc:
            raise TransientError(f"reading {url} failed: {exc}") from exc
        finally:
            response.close()

    def _read(
        self, url: str, response: httpx.Response, links: bool
    ) -> tuple[Page, list[str]] | str:
        status = response.status_code
        if status in _REDIRECTS:
            location = response.headers.get("location")
            if not location:
                raise PermanentError(f"redirect {status} without Location from {url}")
            return location
        if status == 429 or status >= 500:
            raise TransientError(
                f"{url} answered HTTP {status}",
                retry_after=parse_retry_after(response.headers.get("retry-after")),
            )
        if status >= 400:
            raise PermanentError(f"{url} answered HTTP {status}")
        media_type, charset = _content_type(response.headers.get("content-type"))
        if media_type not in ALLOWED_CONTENT_TYPES:
            raise PermanentError(f"content type {media_type or '(none)'!r} is not fetched: {url}")
        body = self._read_capped(url, response)
        text = decode_body(body, charset, sniff_meta=media_type != "text/plain")
        if media_type == "text/plain":
            page = Page(url=url, title="", text=cap_text(text.strip()), content_type=media_type)
            return page, []
        title, main = extract_main_text(text, url)
        found = links_of(text, url) if links else []
        return Page(url=url, title=title, text=main, content_type=media_type), found

    def _read_capped(self, url: str, response: httpx.Response) -> bytes:
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            raise PermanentError(
                f"{url} declares {int(declared)} bytes, over the FETCH_MAX_BYTES cap "
                f"of {self.max_bytes}"
            )
        deadline = time.monotonic() + 3 * self.timeout
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > self.max_bytes:
                raise PermanentError(
                    f"{url} is larger than the FETCH_MAX_BYTES cap of {self.max_bytes} bytes"
                )
            if time.monotonic() > deadline:
                raise TransientError(f"{url} took longer than {3 * self.timeout:.0f}s to send")
            chunks.append(chunk)
        return b"".join(chunks)


def decode_body(body: bytes, declared: str | None, sniff_meta: bool = True) -> str:
    """Text of ``body``: declared charset, then ``<meta>``, then a guess, then UTF-8."""
    for candidate in (declared, _meta_charset(body) if sniff_meta else None):
        codec = _codec(candidate)
        if codec:
            return body.decode(codec, errors="replace")
    best = from_bytes(body[:200_000]).best() if body else None
    if best is not None and best.encoding:
        return body.decode(best.encoding, errors="replace")
    return body.decode("utf-8", errors="replace")


def parse_retry_after(value: str | None, cap: float = 3600.0) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return min(max(float(value), 0.0), cap)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return min(max(when.timestamp() - time.time(), 0.0), cap)


def _content_type(header: str | None) -> tuple[str, str | None]:
    if not header:
        return "", None
    media_type, _, params = header.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, val = param.partition("=")
        if key.strip().lower() == "charset":
            charset = val.strip().strip("\"'") or None
    return media_type.strip().lower(), charset


def _meta_charset(body: bytes) -> str | None:
    match = _META_CHARSET.search(body[:4096])
    return match.group(1).decode("ascii", "ignore") if match else None


def _codec(name: str | None) -> str | None:
    if not name:
        return None
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None
