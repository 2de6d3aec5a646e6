"""``TavilySearch``: the Tavily Search API (``TAVILY_API_KEY``).

``POST {base}/search`` with a bearer key; the answer's ``results`` carry
``title``, ``url``, ``content`` (an extract relevant to the query), ``score``
and, for news, ``published_date``. Time ranges go out as ``start_date`` /
``end_date`` (YYYY-MM-DD), which Tavily applies to every topic.
"""

from __future__ import annotations

from shared.adapters.search.provider_http import http_client, raise_for_status, transport_errors
from shared.core.config import Settings
from shared.core.errors import ConfigurationError
from shared.core.source_models import SearchResult, TimeRange

DEFAULT_BASE_URL = "https://api.tavily.com"
MAX_RESULTS = 20


class TavilySearch:
    name = "tavily"

    def __init__(self, settings: Settings, base_url: str | None = None) -> None:
        if settings.tavily_api_key is None:
            raise ConfigurationError("SEARCH_PROVIDER=tavily needs TAVILY_API_KEY")
        self._key = settings.tavily_api_key.get_secret_value()
        self._base = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self._client = http_client()

    def search(
        self, query: str, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        body: dict[str, object] = {
            "query": query,
            "max_results": max(1, min(max_results, MAX_RESULTS)),
            "search_depth": "basic",
            "topic": "general",
            "include_answer": False,
            "include_raw_content": False,
        }
        if time_range is not None:
            if time_range.start:
                body["start_date"] = time_range.start
            if time_range.end:
                body["end_date"] = time_range.end
        with transport_errors(self.name):
            response = self._client.post(
                f"{self._base}/search",
                json=body,
                headers={"Authorization": f"Bearer {self._key}"},
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
                published=item.get("published_date"),
            )
            for item in payload.get("results", [])
            if item.get("url")
        ][:max_results]
