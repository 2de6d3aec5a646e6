"""The SearchProvider and Reranker ports.

Adapters (``local.py``, ``tavily.py``, ``searxng.py``, ``brave.py``,
``duckduckgo.py``) return ranked ``SearchResult`` lists. They raise
``TransientError`` for 429/5xx/timeouts and ``PermanentError`` otherwise;
the query pipeline decides how a dead provider degrades a run. A
``Reranker`` (``embeddings.py``) reorders a ranked list and never fails it.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from shared.models import SearchResult, TimeRange


@runtime_checkable
class SearchProvider(Protocol):
    name: str

    def search(
        self, query: str, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]: ...


class Reranker(Protocol):
    def rerank(self, query: str, results: list[SearchResult]) -> list[SearchResult]: ...
