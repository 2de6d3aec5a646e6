"""Evidence that survives: a page's passages on a task, copied, bounded, merged per source."""

from __future__ import annotations

from shared.core.research_models import Finding, KeyFinding
from shared.core.source_models import Page, Source, SourceExcerpt
from shared.usecases.research.compress import compress
from shared.usecases.research.evidence import (
    EXCERPT_CHARS,
    MERGED_EXCERPT_CHARS,
    finding_excerpts,
    merge_excerpts,
    relevant_passages,
)

URL = "https://docs.example/generators"
PAGE = " ".join(
    [
        "The weather in the valley was mild that spring and nobody complained about it.",
        "A generator function returns an iterator that produces values lazily on demand.",
        "Cooking pasta takes about ten minutes in salted boiling water for most shapes.",
        "Each yield statement suspends the generator and hands one value to the caller.",
        "The museum opens at nine and closes at five on every weekday of the year.",
    ]
)


def test_passages_are_copied_verbatim_in_page_order_and_skip_the_irrelevant():
    text = relevant_passages(PAGE, "generator iterator yield values", 400)

    assert text == (
        "A generator function returns an iterator that produces values lazily on demand. … "
        "Each yield statement suspends the generator and hands one value to the caller."
    )


def test_passages_stay_within_their_budget():
    long_page = " ".join(
        f"Generators yield value number {i} to their caller lazily." for i in range(500)
    )

    text = relevant_passages(long_page, "generators yield", EXCERPT_CHARS)

    assert 0.8 * EXCERPT_CHARS < len(text) <= EXCERPT_CHARS


def test_each_cited_source_keeps_its_passages_and_its_search_date():
    finding = Finding(
        agent_id=1,
        topic="Generators",
        key_findings=[KeyFinding(text="yield suspends the generator", source_urls=[URL])],
        sources=[Source(url=URL)],
    )

    excerpts = finding_excerpts(
        finding, [Page(url=URL, text=PAGE)], "generators", {URL: "2030-01-02"}
    )

    assert len(excerpts) == 1 and excerpts[0].published == "2030-01-02"
    assert "Each yield statement suspends the generator" in excerpts[0].text
    assert "pasta" not in excerpts[0].text


def test_compression_merges_the_passages_of_one_source_read_by_two_agents():
    first = SourceExcerpt(url=URL, text="A generator function returns an iterator.")
    second = SourceExcerpt(
        url=URL + "/", text="Each yield statement suspends it.", published="2030"
    )
    findings = [
        Finding(
            agent_id=n,
            topic="t",
            topic_id=n,
            todo_id=f"todo-{n}",
            key_findings=[KeyFinding(text=f"fact {n}", source_urls=[excerpt.url])],
            sources=[Source(url=excerpt.url)],
            excerpts=[excerpt],
        )
        for n, excerpt in ((1, first), (2, second))
    ]

    result = compress(findings)

    assert len(result.sources) == 1 and len(result.excerpts) == 1
    merged = result.excerpts[0]
    assert merged.url == result.sources[0].url
    assert merged.text == f"{first.text} … {second.text}" and merged.published == "2030"
    assert all(not f.excerpts for f in result.findings)  # stored once, beside the findings


def test_merged_passages_are_bounded_per_source():
    parts = [SourceExcerpt(url=URL, text=f"Passage {i}. " + "x" * 900) for i in range(5)]

    merged = merge_excerpts(parts)

    assert len(merged) == 1 and len(merged[0].text) <= MERGED_EXCERPT_CHARS
