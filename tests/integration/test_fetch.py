"""HttpFetcher against a real local site: extraction, redirects, SSRF, caps, charsets, errors.

The site listens on 127.0.0.1; the fetcher allows it only under the name
``localhost:PORT`` (FETCH_ALLOWED_HOSTS), so any hop to ``127.0.0.1`` is what
an attacker's redirect into loopback looks like.
"""

from __future__ import annotations

import time

import pytest

from shared.adapters.fetch.http import HttpFetcher
from shared.core.config import Settings
from shared.core.errors import FetchRefused, PermanentError, TransientError
from tests.fakes.scripted_network import LoopbackNetwork, ScriptedResolver
from tests.fakes.web import BIG_SIZE, CP1251_TEXT, FixtureServer, fixture_site  # noqa: F401


@pytest.fixture
def fetcher(fixture_site: FixtureServer):  # noqa: F811
    fetcher = HttpFetcher(
        Settings(
            fetch_allowed_hosts=fixture_site.alias_host,
            fetch_timeout_seconds=0.5,
            fetch_max_bytes=1_000_000,
        )
    )
    yield fetcher
    fetcher.close()


def test_article_text_is_kept_and_page_chrome_dropped(fetcher, fixture_site):  # noqa: F811
    page = fetcher.fetch(fixture_site.alias_url("/article"))
    assert page.title == "Understanding the GIL | PyBlog"
    assert page.content_type == "text/html"
    text = page.text
    assert "# Understanding the GIL" in text
    assert "## What it means for threads" in text
    assert "The global interpreter lock serialises the execution of Python bytecode" in text
    assert "- CPU-bound threads do not run in parallel" in text
    assert "| CPU | processes |" in text
    assert "```\nimport threading\nt = threading.Thread(target=work)\n```" in text
    assert "PEP 703 makes the lock optional" in text
    for junk in (
        "NAV-LINK",
        "COOKIE-BANNER",
        "FOOTER-COPYRIGHT",
        "HEADER-TAGLINE",
        "SIDEBAR-POPULAR",
        "NEWSLETTER-FORM",
        "TRACKING-SCRIPT",
        "font-family",
    ):
        assert junk not in text


def test_plain_text_pages_are_returned_as_is(fetcher, fixture_site):  # noqa: F811
    page = fetcher.fetch(fixture_site.alias_url("/plain"))
    assert page.content_type == "text/plain"
    assert page.text == "plain  text\nbody"


def test_redirects_are_followed_and_reported(fetcher, fixture_site):  # noqa: F811
    start = fixture_site.alias_url("/r1")
    page = fetcher.fetch(start)
    assert page.url == start
    assert page.final_url == fixture_site.alias_url("/article")
    assert "global interpreter lock" in page.text


def test_a_redirect_into_loopback_is_refused_before_it_is_followed(fetcher, fixture_site):  # noqa: F811
    with pytest.raises(FetchRefused, match=r"127\.0\.0\.1 is not allowed \(loopback\)"):
        fetcher.fetch(fixture_site.alias_url("/to-loopback"))
    assert fixture_site.hits("/to-loopback") == 1
    assert fixture_site.hits("/article") == 0


def test_a_redirect_to_the_metadata_service_is_refused(fetcher, fixture_site):  # noqa: F811
    started = time.monotonic()
    refused = r"169\.254\.169\.254 is not allowed \(cloud metadata endpoint\)"
    with pytest.raises(FetchRefused, match=refused):
        fetcher.fetch(fixture_site.alias_url("/to-metadata"))
    assert time.monotonic() - started < 0.5  # refused, not a connect attempt timing out


def test_redirect_loops_stop_after_five_hops(fetcher, fixture_site):  # noqa: F811
    with pytest.raises(PermanentError, match="more than 5 redirects"):
        fetcher.fetch(fixture_site.alias_url("/loop"))
    assert fixture_site.hits("/loop") == 6


def test_the_site_is_refused_when_not_explicitly_allowed(fixture_site):  # noqa: F811
    with pytest.raises(FetchRefused, match="loopback"):
        HttpFetcher(Settings()).fetch(fixture_site.url("/article"))
    assert fixture_site.requests == []


def test_a_20_mb_page_is_cut_off_at_the_size_cap(fetcher, fixture_site):  # noqa: F811
    started = time.monotonic()
    with pytest.raises(PermanentError, match="FETCH_MAX_BYTES cap of 1000000"):
        fetcher.fetch(fixture_site.alias_url("/big"))
    assert time.monotonic() - started < 5
    stats = fixture_site.stream_stats["/big"]
    assert stats["completed"] is False
    assert int(stats["sent"]) < BIG_SIZE


def test_a_declared_oversize_page_is_refused_before_reading(fetcher, fixture_site):  # noqa: F811
    with pytest.raises(PermanentError, match=f"declares {BIG_SIZE} bytes"):
        fetcher.fetch(fixture_site.alias_url("/big-declared"))


def test_wrong_content_type_is_refused(fetcher, fixture_site):  # noqa: F811
    with pytest.raises(PermanentError, match="application/octet-stream"):
        fetcher.fetch(fixture_site.alias_url("/binary"))


def test_windows_1251_from_the_header_is_decoded(fetcher, fixture_site):  # noqa: F811
    page = fetcher.fetch(fixture_site.alias_url("/cp1251"))
    assert page.title == "Блокировка"
    assert CP1251_TEXT in page.text
    assert "# GIL по-русски" in page.text


def test_windows_1251_from_a_meta_tag_is_decoded(fetcher, fixture_site):  # noqa: F811
    page = fetcher.fetch(fixture_site.alias_url("/cp1251-meta"))
    assert page.title == "Мета"
    assert CP1251_TEXT in page.text


def test_a_slow_page_times_out_as_transient(fetcher, fixture_site):  # noqa: F811
    started = time.monotonic()
    with pytest.raises(TransientError, match="timed out"):
        fetcher.fetch(fixture_site.alias_url("/slow"))
    assert time.monotonic() - started < 3


def test_429_carries_retry_after(fetcher, fixture_site):  # noqa: F811
    with pytest.raises(TransientError) as caught:
        fetcher.fetch(fixture_site.alias_url("/ratelimited"))
    assert caught.value.retry_after == 7


def test_5xx_is_transient_and_404_is_permanent(fetcher, fixture_site):  # noqa: F811
    with pytest.raises(TransientError, match="503"):
        fetcher.fetch(fixture_site.alias_url("/unavailable"))
    with pytest.raises(PermanentError, match="404"):
        fetcher.fetch(fixture_site.alias_url("/gone"))


def test_a_rebinding_name_is_fetched_from_the_checked_address_only(fixture_site):  # noqa: F811
    """DNS answers a public address to the guard and 127.0.0.1 after: the pin wins."""
    internal = FixtureServer().start()  # a service on the machine itself
    resolver = ScriptedResolver({"pages.example": [["93.184.216.34"], ["127.0.0.1"]]})
    network = LoopbackNetwork(
        resolver, {"93.184.216.34": fixture_site.port, "127.0.0.1": internal.port}
    )
    fetcher = HttpFetcher(Settings(fetch_timeout_seconds=2), resolver=resolver, network=network)
    try:
        page = fetcher.fetch("http://pages.example/article")
    finally:
        fetcher.close()
        internal.stop()

    assert page.title == "Understanding the GIL | PyBlog"
    assert internal.requests == []
    assert resolver.lookups == ["pages.example"]
    assert network.connections == [("93.184.216.34", 80, "pages.example")]


def test_a_name_resolving_to_loopback_is_refused_before_connecting(fixture_site):  # noqa: F811
    resolver = ScriptedResolver({"pages.example": [["127.0.0.1"]]})
    network = LoopbackNetwork(resolver, {"127.0.0.1": fixture_site.port})
    fetcher = HttpFetcher(Settings(), resolver=resolver, network=network)
    try:
        with pytest.raises(FetchRefused, match=r"'pages\.example' is not allowed"):
            fetcher.fetch("http://pages.example/article")
    finally:
        fetcher.close()

    assert network.connections == [] and fixture_site.requests == []
