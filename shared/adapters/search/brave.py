"""``BraveSearch``: the Brave Search web API (``BRAVE_API_KEY``).

``GET /res/v1/web/search`` with the key in ``X-Subscription-Token``; results
are in ``web.results`` with ``title``, ``url``, ``description`` (which may
contain ``<strong>`` highlights, stripped here), ``age`` and ``page_age``.
Time ranges go out as ``freshness=YYYY-MM-DDtoYYYY-MM-DD``. Rate limits come
back as 429 with ``X-RateLimit-Reset`` (seconds), honoured by the retry.
"""

from __future__ import annotations

import html
import re
from datetime import date

from shared.adapters.search.provider_http import http_client, raise_for_status, transport_errors
from shared.core.config import Settings
from shared.core.errors import ConfigurationError
from shared.core.source_models import SearchResult, TimeRange

DEFAULT_BASE_URL = "https://api.search.brave.com"
MAX_RESULTS = 20
_TAGS = re.compile(r"<[^>]+>")


class BraveSearch:
    name = "brave"

    def __init__(self, settings: Settings, base_url: str | None = None) -> None:
        if settings.brave_api_key is None:
            raise ConfigurationError("SEARCH_PROVIDER=brave needs BRAVE_API_KEY")
        self._key = settings.brave_api_key.get_secret_value()
        self._base = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self._client = http_client()

    def search(
        self, query: str, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        params = {"q": query, "count": str(max(1, min(max_results, MAX_RESULTS)))}
        if time_range is not None and time_range.start:
            end = time_range.end or date.today().isoformat()
            params["freshness"] = f"{time_range.start}to{end}"
        with transport_errors(self.name):
            response = self._client.get(
                f"{self._base}/res/v1/web/search",
                params=params,
                headers={"Accept": "application/json", "X-Subscription-Token": self._key},
            )
            raise_for_status(response, self.name)
            payload = response.json()
        items = (payload.get("web") or {}).get("results", [])
        return [
            SearchResult(
                url=item["url"],
                title=_plain(item.get("title") or ""),
                snippet=_plain(item.get("description") or ""),
                score=1.0 / (rank + 1),
                provider=self.name,
                published=item.get("page_age") or item.get("age"),
            )
            for rank, item in enumerate(items)
            if item.get("url")
        ][:max_results]


def _plain(text: str) -> str:
    return html.unescape(_TAGS.sub("", text)).strip()
