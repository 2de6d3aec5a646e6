"""Completeness per topic and of content, end to end (issue 30, items 6 and 7).

devhost runs the real search orchestrations with the offline reasoner; SearXNG is
``tests.fakes.search_site`` on 127.0.0.1, which records every query it is sent. What
is checked is what a client sees: the status's result and the answer carry a score,
a quote or gaps for every topic; a topic left uncovered after a round was searched
for on its own; a "how to" question whose pages give no steps gets one more round
for them, and its answer says what is still missing. The last test runs the same with
the LLM reasoner against the OpenAI-protocol fake, whose check finds a gap.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from shared.core.config import Settings
from tests.e2e.llm_gate import schema_of
from tests.e2e.polling import TERMINAL, wait_for
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    RecordedRequest,
    Reply,
    json_completion,
    schema_aware_responder,
)
from tests.fakes.search_site import ARTICLES, SearchSite

pytestmark = pytest.mark.e2e

QUESTION = "How do asyncio tasks, coroutines and the event loop handle cancellation?"
HOW_TO = "How to cancel an asyncio task?"


def flat(text: str) -> str:
    return " ".join(text.split())


SITE_TEXT = " ".join(flat(p) for a in ARTICLES for p in a.paragraphs)


@pytest.fixture
def api(start_devhost, data_dir, site: SearchSite) -> Iterator[httpx.Client]:
    host = start_devhost(
        Settings(
            data_dir=data_dir,
            reasoner="offline",
            search_provider="searxng",
            searxng_url=site.origin,
            fetch_allowed_hosts=site.host,
            deep_search_scrape_top_n=2,
        )
    )
    with httpx.Client(base_url=host.url, timeout=30) as client:
        yield client


def answered(api: httpx.Client, site: SearchSite, query: str, mode: str) -> tuple[dict, list]:
    """The finished session's view and the queries the site was sent for it."""
    before = len(site.searches)
    started = api.post("/api/research", json={"query": query, "mode": mode})
    assert started.status_code in (200, 202), started.text
    view = wait_for(api, started.json()["session_id"], TERMINAL, timeout=120)
    assert view["status"] == "completed", view.get("error")
    return view, [q for q, _ in site.searches[before:]]


@pytest.mark.parametrize("mode", ["search", "deep_search"])
def test_an_answer_carries_each_topic_s_completeness_and_its_gaps_were_searched(
    api: httpx.Client, site: SearchSite, mode: str
) -> None:
    view, queries = answered(api, site, QUESTION, mode)

    answer = view["result"]["answer"]
    topics = answer["completeness"]
    assert 3 <= len(topics) <= 6
    for topic in topics:
        assert 0.0 <= topic["score"] <= 1.0
        if topic["covered"]:
            assert topic["evidence"] and flat(topic["evidence"]) in SITE_TEXT  # a real quote
        else:
            assert topic["gaps"] and topic["gap_query"]
    uncovered = [t for t in topics if not t["covered"]]
    assert uncovered, "the site covers some topics only"
    # a topic still open was searched for on its own, after the planned searches
    for topic in uncovered:
        assert topic["gap_query"] in queries[1:], (topic, queries)
    # the same per-topic review is in the answer the report endpoint returns
    report = api.get(f"/api/research/{view['session_id']}/report", params={"format": "json"})
    assert report.json()["completeness"] == topics


def test_a_how_to_question_whose_pages_give_no_steps_searches_for_them_and_says_so(
    api: httpx.Client, site: SearchSite
) -> None:
    view, queries = answered(api, site, HOW_TO, "search")

    answer = view["result"]["answer"]
    assert "steps" in answer["content"]["needs"]
    assert any("step by step" in q for q in queries), queries  # the one more round
    assert "steps" in answer["content"]["missing"]  # the site has none, even after it
    assert any("step-by-step instructions" in note for note in answer["limitations"])


GAP_QUERY = "asyncio cancellation pitfalls shield"
STEPS_QUERY = "cancel asyncio task step by step"


def a_model_that_finds_gaps(request: RecordedRequest) -> Reply:
    """The schema-aware fake, with a completeness check that finds a gap and no steps."""
    if schema_of(request) != "CompletenessReply":
        return schema_aware_responder(request)
    pitfalls = {
        "topic": "Pitfalls",
        "evidence": "",
        "gaps": ["nothing on shielding a task from cancellation"],
        "score": 0.2,
        "covered": False,
        "gap_query": GAP_QUERY,
    }
    return json_completion(
        {
            "topics": [pitfalls],
            "needs": ["steps"],
            "missing": ["steps"],
            "navigation_only": False,
            "content_queries": [STEPS_QUERY],
        }
    )


def test_with_a_model_a_gap_and_missing_steps_are_searched_for(
    start_devhost, data_dir, site: SearchSite
) -> None:
    with FakeOpenAIServer(a_model_that_finds_gaps) as llm:
        host = start_devhost(
            Settings(
                data_dir=data_dir,
                openai_base_url=llm.base_url,
                openai_api_key="test",
                search_provider="searxng",
                searxng_url=site.origin,
                fetch_allowed_hosts=site.host,
                deep_search_scrape_top_n=2,  # pages left for the content round to read
            )
        )
        with httpx.Client(base_url=host.url, timeout=30) as client:
            view, queries = answered(client, site, HOW_TO, "search")
        checks = [r for r in llm.requests if schema_of(r) == "CompletenessReply"]

    # the second round searched the gap alone; then one round for the missing steps
    assert GAP_QUERY in queries and STEPS_QUERY in queries
    assert queries.index(GAP_QUERY) < queries.index(STEPS_QUERY)
    assert len(checks) == 3  # after each of the two rounds and after the content round
    assert "judge exactly these topics" in checks[1].prompt_text  # the first round's topics
    answer = view["result"]["answer"]
    assert answer["completeness"] == [
        {
            "topic_id": 0,
            "topic": "Pitfalls",
            "covered": False,
            "score": 0.2,
            "evidence": "",
            "gaps": ["nothing on shielding a task from cancellation"],
            "gap_query": GAP_QUERY,
        }
    ]
    assert any("step-by-step instructions" in note for note in answer["limitations"])
