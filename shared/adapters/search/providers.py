"""Choosing, retrying and fusing search providers (``SEARCH_PROVIDER``).

``build_search`` turns ``Settings.effective_search_providers`` into one
``SearchProvider``: a single provider wrapped in :class:`RetryingSearch`, or a
:class:`FusedSearch` over several, each retried on its own. Why the fused
search keeps going when a provider dies: a rate-limited Brave key should cost
a run some recall, not the whole answer. It raises only when every provider
failed (transient if any failure was transient, so the orchestrator's retry
still makes sense).

The provider modules are imported here lazily, by name; what the HTTP ones
share lives in ``provider_http.py``, so none of them imports this module.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context

from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt

from shared.adapters.search.base import SearchProvider
from shared.adapters.search.pipeline import rrf_fuse
from shared.core.config import Settings
from shared.core.errors import ConfigurationError, PermanentError, ResearchError, TransientError
from shared.core.source_models import SearchResult, TimeRange
from shared.tools.telemetry import tracing

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
BASE_DELAY_SECONDS = 0.25
MAX_DELAY_SECONDS = 4.0
KNOWN_PROVIDERS = ("tavily", "searxng", "brave", "duckduckgo", "ddg", "local")


def build_search(
    settings: Settings, corpus_factory: Callable[[], SearchProvider]
) -> SearchProvider:
    """The configured provider(s) as one ``SearchProvider``; unknown names are a config error."""
    names = list(dict.fromkeys(_canonical(n) for n in settings.effective_search_providers))
    if not names:
        raise ConfigurationError("SEARCH_PROVIDER names no provider")
    providers = [RetryingSearch(_build_one(name, settings, corpus_factory)) for name in names]
    return providers[0] if len(providers) == 1 else FusedSearch(providers)


class RetryingSearch:
    """A provider whose transient failures are retried a few quick times.

    The wait honours ``TransientError.retry_after`` up to ``max_delay`` (a
    longer ban is better left to the orchestrator's activity retry), else
    doubles from ``base_delay``.
    """

    def __init__(
        self,
        inner: SearchProvider,
        attempts: int = MAX_ATTEMPTS,
        base_delay: float = BASE_DELAY_SECONDS,
        max_delay: float = MAX_DELAY_SECONDS,
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.attempts = attempts
        self.base_delay = base_delay
        self.max_delay = max_delay

    def search(
        self, query: str, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        retrying = Retrying(
            stop=stop_after_attempt(self.attempts),
            retry=retry_if_exception_type(TransientError),
            wait=self._wait,
            reraise=True,
            before_sleep=lambda state: log.warning(
                "search provider %s failed (attempt %d), retrying: %s",
                self.name,
                state.attempt_number,
                state.outcome.exception() if state.outcome else "",
            ),
        )
        attributes = {"search.provider": self.name, "search.max_results": max_results}
        with tracing.span("search", attributes, {"search.query": query}) as span:
            results = retrying(self.inner.search, query, max_results, time_range)
            tracing.set_attributes(span, {"search.results": len(results)})
        return results

    def _wait(self, state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        hinted = getattr(error, "retry_after", None)
        if hinted is not None:
            return min(float(hinted), self.max_delay)
        return min(self.base_delay * 2 ** (state.attempt_number - 1), self.max_delay)


class FusedSearch:
    """Several providers queried in parallel, fused with Reciprocal Rank Fusion."""

    def __init__(self, providers: list[SearchProvider], max_workers: int = 4) -> None:
        if not providers:
            raise ConfigurationError("SEARCH_PROVIDER names no provider")
        self.providers = providers
        self.name = "+".join(p.name for p in providers)
        self.max_workers = max_workers

    def search(
        self, query: str, max_results: int, time_range: TimeRange | None = None
    ) -> list[SearchResult]:
        workers = min(self.max_workers, len(self.providers))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="search") as pool:
            futures = [
                # each in a copy of this context, so its span joins the activity's trace
                (p, pool.submit(copy_context().run, p.search, query, max_results, time_range))
                for p in self.providers
            ]
        ranked: list[list[SearchResult]] = []
        failures: list[tuple[str, ResearchError]] = []
        for provider, future in futures:
            error = future.exception()
            if error is None:
                ranked.append(future.result())
            elif isinstance(error, ResearchError):
                log.warning("search provider %s gave up: %s", provider.name, error)
                failures.append((provider.name, error))
            else:
                raise error
        if not ranked:
            summary = "; ".join(f"{name}: {err}" for name, err in failures)
            if any(isinstance(err, TransientError) for _, err in failures):
                raise TransientError(f"every search provider failed: {summary}")
            raise PermanentError(f"every search provider failed: {summary}")
        return rrf_fuse(ranked)[:max_results]


def _canonical(name: str) -> str:
    name = name.strip().lower()
    return "duckduckgo" if name == "ddg" else name


def _build_one(
    name: str, settings: Settings, corpus_factory: Callable[[], SearchProvider]
) -> SearchProvider:
    if name == "local":
        return corpus_factory()
    if name == "tavily":
        from shared.adapters.search.tavily import TavilySearch

        return TavilySearch(settings)
    if name == "searxng":
        from shared.adapters.search.searxng import SearxngSearch

        return SearxngSearch(settings)
    if name == "brave":
        from shared.adapters.search.brave import BraveSearch

        return BraveSearch(settings)
    if name == "duckduckgo":
        from shared.adapters.search.duckduckgo import DuckDuckGoSearch

        return DuckDuckGoSearch(settings)
    raise ConfigurationError(
        f"SEARCH_PROVIDER names unknown provider {name!r} (known: {', '.join(KNOWN_PROVIDERS)})"
    )
