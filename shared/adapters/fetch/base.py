"""The page Fetcher port: URL in, clean main text out.

``HttpFetcher`` (``http.py``) serves http(s) behind the SSRF guard; the local
corpus serves ``corpus://`` URLs. ``SchemeFetcher`` routes by scheme so callers
hold one fetcher. Refusals raise ``FetchRefused``; network trouble raises
``TransientError``; both are recorded with the source by the caller.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable
from urllib.parse import urlsplit

from shared.core.errors import FetchRefused
from shared.core.source_models import Page
from shared.tools.telemetry import tracing


@runtime_checkable
class Fetcher(Protocol):
    def fetch(self, url: str) -> Page: ...


@runtime_checkable
class LinkFetcher(Protocol):
    """A fetcher that can also give the links of an HTML page (what a crawl follows)."""

    def fetch_with_links(self, url: str, links: bool = True) -> tuple[Page, list[str]]: ...


class SchemeFetcher:
    """Dispatch to one fetcher per URL scheme."""

    def __init__(self, by_scheme: dict[str, Fetcher]) -> None:
        self._by_scheme = by_scheme

    def fetch(self, url: str) -> Page:
        scheme = urlsplit(url).scheme.lower()
        fetcher = self._by_scheme.get(scheme)
        if fetcher is None:
            raise FetchRefused(f"scheme {scheme!r} is not allowed: {url}")
        with tracing.span("fetch page", {"url.scheme": scheme}, {"url.full": url}) as span:
            page = fetcher.fetch(url)
            tracing.set_attributes(span, {"page.chars": len(page.text)})
        return page
