"""Search adapters against local fakes that answer with the public APIs' JSON shapes."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest

from shared.adapters.search.brave import BraveSearch
from shared.adapters.search.providers import FusedSearch, RetryingSearch, build_search
from shared.adapters.search.searxng import SearxngSearch
from shared.adapters.search.tavily import TavilySearch
from shared.core.config import Settings
from shared.core.errors import ConfigurationError, PermanentError, TransientError
from shared.core.source_models import SearchResult, TimeRange
from tests.fakes.web import (  # noqa: F401
    BRAVE_KEY,
    TAVILY_KEY,
    FixtureServer,
    Reply,
    Request,
    StaticSearch,
    search_apis,
)


def tavily(apis: FixtureServer, key: str = TAVILY_KEY) -> TavilySearch:
    return TavilySearch(Settings(tavily_api_key=key), base_url=apis.url("/tavily"))


def searxng(apis: FixtureServer, path: str = "/searxng") -> SearxngSearch:
    return SearxngSearch(Settings(searxng_url=apis.url(path)))


def test_tavily_results_and_request(search_apis):  # noqa: F811
    window = TimeRange(start="2025-01-01", end="2025-05-15", label="this year")
    results = tavily(search_apis).search("python asyncio", 5, window)
    assert [r.url for r in results] == [
        "https://docs.python.org/3/library/asyncio.html",
        "https://realpython.com/async-io-python/?utm_source=tavily",
    ]
    assert results[0].title.startswith("asyncio")
    assert results[0].snippet.startswith("asyncio is a library")
    assert results[0].score == 0.91
    assert {r.provider for r in results} == {"tavily"}
    sent = json.loads(search_apis.requests[-1].body)
    assert sent["query"] == "python asyncio"
    assert sent["max_results"] == 5
    assert (sent["start_date"], sent["end_date"]) == ("2025-01-01", "2025-05-15")


def test_tavily_with_a_bad_key_is_permanent(search_apis):  # noqa: F811
    with pytest.raises(PermanentError, match="401"):
        tavily(search_apis, key="tvly-wrong").search("q", 3)


def test_tavily_needs_its_key():
    with pytest.raises(ConfigurationError, match="TAVILY_API_KEY"):
        TavilySearch(Settings())


def test_searxng_results_and_time_range(search_apis):  # noqa: F811
    start = (date.today() - timedelta(days=20)).isoformat()
    results = searxng(search_apis).search("python asyncio", 1, TimeRange(start=start))
    assert len(results) == 1
    assert results[0].url == "https://realpython.com/async-io-python/"
    assert results[0].published == "2024-02-11T00:00:00"
    assert results[0].provider == "searxng"
    query = search_apis.requests[-1].query
    assert query["format"] == ["json"]
    assert query["time_range"] == ["month"]


def test_brave_results_headers_and_freshness(search_apis):  # noqa: F811
    brave = BraveSearch(Settings(brave_api_key=BRAVE_KEY), base_url=search_apis.url("/brave"))
    window = TimeRange(start="2024-01-01", end="2024-06-30")
    results = brave.search("asyncio tasks", 8, window)
    assert [r.url for r in results] == ["https://docs.python.org/3/library/asyncio-task.html"]
    assert results[0].snippet.startswith("This section outlines high-level asyncio APIs")
    assert "<strong>" not in results[0].snippet
    assert results[0].published == "2024-05-02T10:12:00"
    request = search_apis.requests[-1]
    assert request.query["freshness"] == ["2024-01-01to2024-06-30"]
    assert request.query["count"] == ["8"]


def test_a_dead_provider_does_not_stop_the_fused_search(search_apis):  # noqa: F811
    fused = FusedSearch(
        [
            RetryingSearch(tavily(search_apis), base_delay=0.01),
            RetryingSearch(searxng(search_apis, "/down"), base_delay=0.01),
        ]
    )
    results = fused.search("python asyncio", 8)
    assert results[0].url == "https://docs.python.org/3/library/asyncio.html"
    assert len(results) == 2
    assert search_apis.hits("/down/search") == 3  # retried, then given up on


def test_fusion_merges_the_same_page_from_two_providers(search_apis):  # noqa: F811
    fused = FusedSearch([tavily(search_apis), searxng(search_apis)])
    results = fused.search("python asyncio", 8)
    realpython = [r for r in results if "realpython.com" in r.url]
    assert len(realpython) == 1
    assert results[0].url == realpython[0].url  # found by both, so fused to the top
    assert realpython[0].provider == "tavily,searxng"
    assert len(results) == 3


def test_when_every_provider_fails_the_error_is_transient(search_apis):  # noqa: F811
    fused = FusedSearch(
        [
            RetryingSearch(searxng(search_apis, "/down"), base_delay=0.01),
            RetryingSearch(searxng(search_apis, "/limited"), base_delay=0.01),
        ]
    )
    with pytest.raises(TransientError, match="every search provider failed"):
        fused.search("q", 3)
    assert search_apis.hits("/limited/search") == 3


def test_retry_recovers_when_the_provider_comes_back(search_apis):  # noqa: F811
    statuses = iter([503])
    answer_normally = search_apis.routes["/searxng/search"]

    def flaky(request: Request) -> Reply:
        status = next(statuses, 200)
        if status != 200:
            return Reply(status, b"busy", {"Retry-After": "0"})
        return answer_normally(request)

    search_apis.routes["/flaky/search"] = flaky
    results = RetryingSearch(searxng(search_apis, "/flaky")).search("q", 3)
    assert len(results) == 2
    assert search_apis.hits("/flaky/search") == 2


def test_build_search_fuses_configured_providers(search_apis):  # noqa: F811
    corpus = StaticSearch(
        "local", [SearchResult(url="corpus://python/gil", title="GIL", provider="local")]
    )
    search = build_search(
        Settings(search_provider="searxng, local", searxng_url=search_apis.url("/searxng")),
        corpus_factory=lambda: corpus,
    )
    assert search.name == "searxng+local"
    urls = [r.url for r in search.search("gil", 5)]
    assert "corpus://python/gil" in urls
    assert "https://realpython.com/async-io-python/" in urls
    assert corpus.calls == [("gil", 5, None)]


def test_build_search_single_provider_and_aliases():
    corpus = StaticSearch("local", [])
    assert build_search(Settings(), corpus_factory=lambda: corpus).name == "local"
    assert build_search(Settings(search_provider="ddg"), lambda: corpus).name == "duckduckgo"


def test_unknown_provider_is_a_configuration_error():
    with pytest.raises(ConfigurationError, match=r"SEARCH_PROVIDER.*'bing'"):
        build_search(Settings(search_provider="tavily,bing", tavily_api_key="k"), lambda: None)
