"""``DuckDuckGoSearch``: keyless web search through the maintained ``ddgs`` package.

``ddgs`` scrapes public search front ends, so it cannot be tested offline
and may be rate limited; its errors are all treated as transient, so the
retry and the fused search degrade gracefully. The package is imported on
first search, never at import time.
"""

from __future__ import annotations

from shared.core.config import Settings
from shared.core.errors import ConfigurationError, TransientError
from shared.core.source_models import SearchResult, TimeRange


class DuckDuckGoSearch:
    name = "duckduckgo"

    def __init__(self, settings: Settings, timeout: int = 10) -> None:
        self._timeout = timeout

    def search(
        self, query: str, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        try:
            from ddgs import DDGS
            from ddgs.exceptions import DDGSException
        except ImportError as exc:
            raise ConfigurationError("SEARCH_PROVIDER=duckduckgo needs the ddgs package") from exc
        try:
            rows = DDGS(timeout=self._timeout).text(
                query, max_results=max_results, timelimit=_timelimit(time_range)
            )
        except DDGSException as exc:
            raise TransientError(f"duckduckgo search failed: {exc}") from exc
        return [
            SearchResult(
                url=row["href"],
                title=row.get("title") or "",
                snippet=row.get("body") or "",
                score=1.0 / (rank + 1),
                provider=self.name,
            )
            for rank, row in enumerate(rows or [])
            if row.get("href")
        ][:max_results]


def _timelimit(time_range: TimeRange | None) -> str | None:
    from shared.adapters.search.searxng import relative_range

    relative = relative_range(time_range)
    return {"day": "d", "week": "w", "month": "m", "year": "y"}.get(relative or "")
