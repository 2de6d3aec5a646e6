"""Source tiers: the shipped table, overrides, and the three source policies."""

from __future__ import annotations

import json

import pytest

from shared.adapters.search.tiers import SourceTiers
from shared.core.errors import ConfigurationError
from shared.core.source_models import SearchResult


@pytest.fixture(scope="module")
def tiers() -> SourceTiers:
    return SourceTiers.load(None)


@pytest.mark.parametrize(
    ("url", "tier"),
    [
        ("https://docs.python.org/3/reference/", 1),
        ("https://www.cdc.gov/flu/", 1),
        ("https://data.census.gov/table", 1),
        ("https://learn.microsoft.com/azure/", 1),
        ("https://www.who.int/news", 1),
        ("https://arxiv.org/abs/1706.03762", 2),
        ("https://cs.stanford.edu/people/x", 2),
        ("https://en.wikipedia.org/wiki/Python", 2),
        ("https://techcrunch.com/2024/01/01/x", 3),
        ("https://unknown-site.example/post", 3),
        ("https://aws.amazon.com/blogs/x", 3),
        ("https://docs.aws.amazon.com/lambda/", 1),
        ("https://medium.com/@someone/post", 4),
        ("https://someone.medium.com/post", 4),
        ("https://dev.to/x/y", 4),
        ("https://stackoverflow.com/questions/1", 4),
        ("https://www.reddit.com/r/python/", 5),
        ("https://www.quora.com/q", 5),
        ("corpus://python-reference/lexical_analysis", 1),
        ("not a url", 3),
    ],
)
def test_tier_of(tiers, url, tier):
    assert tiers.tier_of(url) == tier


def test_lookalike_domains_do_not_inherit_a_tier(tiers):
    assert tiers.tier_of("https://python.org.evil.example/") == 3
    assert tiers.tier_of("https://notpython.org/") == 3


def results(*urls: str) -> list[SearchResult]:
    return [SearchResult(url=u, title=u) for u in urls]


def test_discovery_keeps_everything_and_marks_tiers(tiers):
    kept, warnings = tiers.apply_policy(
        results("https://reddit.com/r/x", "https://docs.python.org/3/"), "discovery"
    )
    assert [k.tier for k in kept] == [5, 1]
    assert warnings == []


def test_strict_keeps_tiers_one_and_two(tiers):
    kept, warnings = tiers.apply_policy(
        results("https://reddit.com/r/x", "https://docs.python.org/3/", "https://arxiv.org/abs/1"),
        "strict",
    )
    assert [k.url for k in kept] == ["https://docs.python.org/3/", "https://arxiv.org/abs/1"]
    assert warnings == []


def test_strict_falls_back_to_everything_with_a_visible_warning(tiers):
    kept, warnings = tiers.apply_policy(
        results("https://reddit.com/r/x", "https://medium.com/p"), "strict"
    )
    assert len(kept) == 2
    assert len(warnings) == 1
    assert "strict" in warnings[0] and "tier 1-2" in warnings[0]


def test_monitor_keeps_everything_and_flags_a_missing_side(tiers):
    kept, warnings = tiers.apply_policy(
        results("https://docs.python.org/3/", "https://reddit.com/r/x"), "monitor"
    )
    assert len(kept) == 2 and warnings == []
    _, warnings = tiers.apply_policy(results("https://docs.python.org/3/"), "monitor")
    assert any("tier 5" in w for w in warnings)


def test_source_tiers_file_overrides_and_extends(tmp_path):
    override = tmp_path / "tiers.json"
    override.write_text(
        json.dumps({"default": 4, "tiers": {"1": ["intranet.corp"], "5": ["medium.com"]}})
    )
    tiers = SourceTiers.load(override)
    assert tiers.tier_of("https://wiki.intranet.corp/page") == 1
    assert tiers.tier_of("https://medium.com/p") == 5
    assert tiers.tier_of("https://docs.python.org/3/") == 1  # default table still applies
    assert tiers.tier_of("https://unknown.example/") == 4


def test_a_broken_source_tiers_file_is_a_configuration_error(tmp_path):
    broken = tmp_path / "tiers.json"
    broken.write_text("{not json")
    with pytest.raises(ConfigurationError, match="SOURCE_TIERS_FILE"):
        SourceTiers.load(broken)
    bad_tier = tmp_path / "bad.json"
    bad_tier.write_text(json.dumps({"tiers": {"9": ["x.com"]}}))
    with pytest.raises(ConfigurationError, match="between 1 and 5"):
        SourceTiers.load(bad_tier)


def test_strict_without_fallback_leaves_the_lower_tiers_out_and_says_so(tiers):
    """Inside a deep research strict never falls back: an all-forum list becomes empty."""
    forum = [
        SearchResult(url="https://www.reddit.com/r/python/"),
        SearchResult(url="https://stackoverflow.com/q/1"),
    ]
    kept, warnings = tiers.apply_policy(forum, "strict", fallback=False)
    assert kept == []
    assert warnings == [
        "strict source policy: no tier 1-2 source among 2 results; the tier 3-5 ones were left out"
    ]
    mixed = [*forum, SearchResult(url="https://docs.python.org/3/")]
    kept, warnings = tiers.apply_policy(mixed, "strict", fallback=False)
    assert [r.url for r in kept] == ["https://docs.python.org/3/"] and warnings == []
