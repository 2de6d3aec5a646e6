"""``SearxngSearch``: a SearXNG instance's JSON API (``SEARXNG_URL``).

``GET {SEARXNG_URL}/search?q=...&format=json``; the instance must list
``json`` under ``search.formats`` in its settings (otherwise it answers 403,
reported as a permanent error). SearXNG only knows relative time ranges
(``day``, ``week``, ``month``, ``year``), so an absolute range is widened to
the smallest one that covers its start.
"""

from __future__ import annotations

from datetime import date

from shared.adapters.search.provider_http import http_client, raise_for_status, transport_errors
from shared.core.config import Settings
from shared.core.errors import ConfigurationError
from shared.core.source_models import SearchResult, TimeRange


class SearxngSearch:
    name = "searxng"

    def __init__(self, settings: Settings) -> None:
        if not settings.searxng_url:
            raise ConfigurationError("SEARCH_PROVIDER=searxng needs SEARXNG_URL")
        self._base = settings.searxng_url.rstrip("/")
        self._client = http_client()

    def search(
        self, query: str, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        params = {"q": query, "format": "json", "pageno": "1"}
        relative = relative_range(time_range)
        if relative:
            params["time_range"] = relative
        with transport_errors(self.name):
            response = self._client.get(
                f"{self._base}/search", params=params, headers={"Accept": "application/json"}
            )
            raise_for_status(response, self.name)
            payload = response.json()
        return [
            SearchResult(
                url=item["url"],
                title=item.get("title") or "",
                snippet=item.get("content") or "",
                score=float(item.get("score") or 0.0),
                provider=self.name,
                published=item.get("publishedDate") or None,
            )
            for item in payload.get("results", [])
            if item.get("url")
        ][:max_results]


def relative_range(time_range: TimeRange | None, today: date | None = None) -> str | None:
    """SearXNG's ``time_range`` covering ``time_range.start``, or None for older / no range."""
    if time_range is None or not time_range.start:
        return None
    age = ((today or date.today()) - date.fromisoformat(time_range.start)).days
    for limit, name in ((1, "day"), (7, "week"), (31, "month"), (366, "year")):
        if age <= limit:
            return name
    return None
