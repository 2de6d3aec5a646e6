"""`search` and `deep_search` end to end against a web of their own (issue 5).

devhost runs the real orchestrations with the offline reasoner; search goes
through the real SearXNG adapter to ``tests.fakes.search_site`` on 127.0.0.1,
and the real fetcher reads that site's pages (nav, cookie banner and footer
included). The site records what it was asked, so every check is about what
a user would see: which pages were read, which sources the answer lists, that
each [n] resolves, and that no page chrome leaked into the answer.

Run with ``-s`` to see the sources, citations and durations printed.

Not covered here: a second provider failing beside SearXNG
(``SEARCH_PROVIDER=searxng,tavily``). Settings has no Tavily URL, so Tavily
would call api.tavily.com; that variant needs a ``TAVILY_BASE_URL`` setting first.
"""

from __future__ import annotations

import re
import time
from urllib.parse import urlsplit

import httpx
import pytest

from shared.core.config import Settings
from tests.e2e.polling import TERMINAL, wait_for
from tests.fakes.search_site import (
    ARTICLES,
    JUNK,
    TRACKED_PATH,
    SearchSite,
)

pytestmark = pytest.mark.e2e

QUESTION = "How do asyncio tasks, coroutines and the event loop handle cancellation?"
CITATION = re.compile(r"\[(\d+)\]")
RUN_TIMEOUT = 120.0


@pytest.fixture
def web_host(start_devhost, data_dir, site: SearchSite):
    return start_devhost(
        Settings(
            data_dir=data_dir,
            reasoner="offline",
            search_provider="searxng",
            searxng_url=site.origin,
            fetch_allowed_hosts=site.host,
            # Two pages per iteration: two `search` iterations cannot read the
            # whole site, so the extra `deep_search` iterations have pages left.
            deep_search_scrape_top_n=2,
        )
    )


def run_mode(api: httpx.Client, site: SearchSite, host, mode: str) -> dict:
    """Run one mode to the end; return its view, answer, pages read and activity counts."""
    requests_before = len(site.server.requests)
    stats_before = dict(host.engine.stats)
    started = time.monotonic()
    response = api.post("/api/research", json={"query": QUESTION, "mode": mode})
    assert response.status_code in (200, 202), response.text
    view = wait_for(api, response.json()["session_id"], TERMINAL, timeout=RUN_TIMEOUT)
    elapsed = time.monotonic() - started
    report = api.get(f"/api/research/{view['session_id']}/report", params={"format": "json"})
    assert report.status_code == 200, report.text
    stats = {k: v - stats_before.get(k, 0) for k, v in host.engine.stats.items()}
    run = {
        "memory": host.settings.data_dir / "memory" / view["session_id"],
        "view": view,
        "answer": report.json(),
        "pages": site.page_hits(since=requests_before),
        "stats": stats,
        "seconds": elapsed,
    }
    show(mode, run)
    return run


def show(mode: str, run: dict) -> None:
    answer = run["answer"]
    cited = sorted({int(n) for n in CITATION.findall(answer["answer"])})
    print(f"\n== {mode}: {run['view']['status']} in {run['seconds']:.1f} s")
    print(f"   web_search activities: {run['stats'].get('activity:web_search', 0)}")
    print(f"   pages read: {sorted(run['pages'].items())}")
    print(f"   citations used: {cited}")
    for source in answer["sources"]:
        print(f"   [{source['n']}] {source['title']} <{source['url']}>")


def check_answer(run: dict, site: SearchSite) -> None:
    view, answer = run["view"], run["answer"]
    assert view["status"] == "completed", view.get("error")
    sources = answer["sources"]
    assert len(sources) >= 2, sources

    # Every source is a page of the fixture site that this run actually read.
    for source in sources:
        parts = urlsplit(source["url"])
        assert f"{parts.scheme}://{parts.netloc}" == site.origin, source
        assert run["pages"].get(parts.path, 0) >= 1, f"{source['url']} was never fetched"

    # Every [n] in the answer is a listed source; numbers are not reused.
    numbers = [s["n"] for s in sources]
    assert len(numbers) == len(set(numbers))
    cited = {int(n) for n in CITATION.findall(answer["answer"])}
    assert cited, "the answer cites its sources"
    assert cited <= set(numbers), f"[{sorted(cited - set(numbers))}] cite no listed source"

    # The page chrome stayed out of the answer and out of everything the session
    # kept from the pages (their text, summaries and the answer's Markdown), which
    # is what an LLM reasoner would read.
    shown = " ".join([answer["answer"], answer.get("reasoning", ""), *answer["key_points"]])
    kept = sorted(p for p in run["memory"].rglob("*") if p.is_file())
    assert any(p.parent.name == "pages" for p in kept), kept
    for path in kept:
        shown += "\n" + path.read_text(encoding="utf-8")
    for phrase in JUNK:
        assert phrase.lower() not in shown.lower(), f"boilerplate leaked: {phrase!r}"

    # The tracked duplicate counted once: no page of the site was fetched twice.
    assert all(count == 1 for count in run["pages"].values()), run["pages"]


def test_search_and_deep_search_answer_from_the_pages_they_read(web_host, site: SearchSite) -> None:
    with httpx.Client(base_url=web_host.url, timeout=30) as api:
        search = run_mode(api, site, web_host, "search")
        deep = run_mode(api, site, web_host, "deep_search")

    check_answer(search, site)
    check_answer(deep, site)

    # Search went through the SearXNG endpoint, which offered the tracked duplicate,
    # and the page behind it was read exactly once per session.
    offered = [url for _, urls in site.searches for url in urls]
    assert any("utm_source=" in url for url in offered)
    assert any(urlsplit(url).path == TRACKED_PATH and not urlsplit(url).query for url in offered)
    assert search["pages"].get(TRACKED_PATH) == 1 and deep["pages"].get(TRACKED_PATH) == 1

    # deep_search searched more rounds and read more of the site than search.
    assert deep["stats"]["activity:web_search"] > search["stats"]["activity:web_search"]
    assert len(deep["pages"]) > len(search["pages"])
    assert len(deep["pages"]) <= len(ARTICLES)


def test_deep_search_goes_on_to_pages_it_has_not_read(web_host, site: SearchSite) -> None:
    """Every page matches the question: six iterations of two pages can read all eight."""
    with httpx.Client(base_url=web_host.url, timeout=30) as api:
        deep = run_mode(api, site, web_host, "deep_search")

    assert deep["view"]["status"] == "completed"
    assert sorted(deep["pages"]) == sorted(a.path for a in ARTICLES)
