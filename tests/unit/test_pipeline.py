"""Query pipeline steps: URL identity, dedupe, filters, RRF, rerank, diversity."""

from __future__ import annotations

import pytest

from shared.adapters.search.pipeline import (
    dedupe,
    diversify,
    filter_blocked,
    normalize_url,
    process,
    rerank,
    rrf_fuse,
)
from shared.core.source_models import SearchResult


def r(url: str, title: str = "", snippet: str = "", score: float = 0.0, provider: str = "p"):
    return SearchResult(url=url, title=title, snippet=snippet, score=score, provider=provider)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("HTTPS://Docs.Python.org/3/library/", "https://docs.python.org/3/library"),
        ("https://example.com:443/a#section-2", "https://example.com/a"),
        ("http://example.com:80/", "http://example.com/"),
        ("http://example.com:8080/x/", "http://example.com:8080/x"),
        ("https://example.com", "https://example.com/"),
        (
            "https://example.com/p?utm_source=x&b=2&utm_medium=y&a=1&gclid=z&fbclid=q",
            "https://example.com/p?a=1&b=2",
        ),
        ("https://example.com/p?ref=hn&mc_cid=1&id=7", "https://example.com/p?id=7"),
        ("https://example.com/?q=", "https://example.com/?q="),
    ],
)
def test_normalize_url(raw, expected):
    assert normalize_url(raw) == expected


def test_dedupe_keeps_first_position_and_best_score():
    results = [
        r("https://a.com/x?utm_source=feed", "A", score=0.2),
        r("https://b.com/", "B", score=0.5),
        r("https://A.com/x/#top", "A better", score=0.9),
    ]
    kept = dedupe(results)
    assert [k.title for k in kept] == ["A better", "B"]
    assert kept[0].score == 0.9


def test_filter_blocked_matches_subdomains_and_keywords_case_insensitively():
    results = [
        r("https://www.pinterest.com/pin/1", "Pins"),
        r("https://pinterest.com.evil.org/", "not a pinterest subdomain"),
        r("https://news.example.org/a", "Casino bonus"),
        r("https://good.org/a", "Fine", "nothing bad"),
        r("https://shop.org/Sponsored-post", "Deal"),
    ]
    kept = filter_blocked(results, ["Pinterest.com"], ["CASINO", "sponsored"])
    assert [k.url for k in kept] == ["https://pinterest.com.evil.org/", "https://good.org/a"]


def test_rrf_scores_sum_reciprocal_ranks_and_merge_duplicates():
    list_a = [r("https://x.com/1", provider="tavily"), r("https://y.com/2", provider="tavily")]
    list_b = [r("https://y.com/2/", provider="searxng"), r("https://z.com/3", provider="searxng")]
    fused = rrf_fuse([list_a, list_b], k=60)
    top = fused[0]
    assert normalize_url(top.url) == "https://y.com/2"
    assert top.score == pytest.approx(1 / 62 + 1 / 61, abs=1e-6)
    assert top.provider == "tavily,searxng"
    assert fused[1].url == "https://x.com/1"  # rank 1 in one list beats rank 2 in one list
    assert fused[1].score == pytest.approx(1 / 61, abs=1e-6)
    assert len(fused) == 3


def test_rrf_counts_a_url_once_per_list():
    fused = rrf_fuse([[r("https://x.com/"), r("https://x.com/#again")]], k=60)
    assert len(fused) == 1
    assert fused[0].score == pytest.approx(1 / 61, abs=1e-6)


def test_rerank_promotes_lexically_relevant_results():
    results = [
        r("https://a.com/", "Gardening tips", "How to grow tomatoes"),
        r("https://b.com/", "Cooking pasta", "Boil water and salt it"),
        r("https://c.com/", "Python asyncio event loop", "The asyncio event loop runs tasks"),
    ]
    ranked = rerank("python asyncio event loop", results, top_k=2)
    assert len(ranked) == 2
    assert ranked[0].url == "https://c.com/"


def test_rerank_handles_cyrillic_queries():
    results = [
        r("https://a.ru/", "Погода", "Прогноз погоды"),
        r("https://b.ru/", "Блокировка интерпретатора", "GIL в Python: блокировка потоков"),
    ]
    assert rerank("блокировка python", results, top_k=1)[0].url == "https://b.ru/"


def test_diversify_swaps_in_other_domains_when_available():
    results = [
        r("https://a.com/1"),
        r("https://a.com/2"),
        r("https://www.a.com/3"),
        r("https://a.com/4"),
        r("https://b.com/1"),
        r("https://c.com/1"),
    ]
    top = diversify(results, min_domains=3, top_k=4)
    assert [t.url for t in top] == [
        "https://a.com/1",
        "https://a.com/2",
        "https://b.com/1",
        "https://c.com/1",
    ]


def test_diversify_keeps_order_when_no_other_domains_exist():
    results = [r("https://a.com/1"), r("https://a.com/2"), r("https://a.com/3")]
    assert diversify(results, min_domains=3, top_k=2) == results[:2]


def test_process_runs_the_whole_pipeline():
    query_a = [
        r("https://docs.python.org/3/library/asyncio.html?utm_source=x", "asyncio docs", "asyncio"),
        r("https://spam.example/asyncio", "asyncio casino", "win"),
        r("https://realpython.com/async-io-python/", "Async IO in Python", "asyncio guide"),
    ]
    query_b = [
        r("https://docs.python.org/3/library/asyncio.html", "asyncio docs", "asyncio"),
        r("https://blocked.com/asyncio", "asyncio", "asyncio"),
        r("https://stackoverflow.com/q/1", "How does asyncio work", "asyncio question"),
    ]
    out = process(
        "asyncio",
        [query_a, query_b],
        blocked_domains=["blocked.com"],
        blocked_keywords=["casino"],
        top_k=3,
    )
    urls = [o.url for o in out]
    assert urls[0].startswith("https://docs.python.org/3/library/asyncio.html")
    assert len(urls) == 3
    assert not any("spam.example" in u or "blocked.com" in u for u in urls)
    assert len({normalize_url(u) for u in urls}) == 3
