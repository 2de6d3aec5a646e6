"""Source policies end to end (issue 30, items 2 and 4): strict everywhere, and the
policy chosen from the question's words when the request names none.

devhost runs the real flows; search goes through the real SearXNG adapter to
``tests.fakes.search_site``, whose results link half the site as ``127.0.0.1``
and half as ``localhost``. A ``SOURCE_TIERS_FILE`` makes the first tier 1
(official) and the second tier 5 (forum), so every page the run reads, and
every source it cites, names its tier by its host. The deep research runs the
LLM reasoner against the OpenAI-protocol fake, which records every prompt.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from shared.core.config import Settings
from shared.tools.prompts.framing import SOURCE_POLICY_RULES
from tests.e2e.polling import wait_terminal
from tests.e2e.test_llm_deep_research import schema_of
from tests.fakes.openai_server import FakeOpenAIServer, schema_aware_responder
from tests.fakes.search_site import TIERS, SearchSite, running_search_site

pytestmark = pytest.mark.e2e

COMMUNITY = frozenset(
    {"/forum/gather-vs-taskgroup", "/guide/gather", "/guide/queues", "/guide/synchronization"}
)
QUESTION = "How do asyncio tasks, gather, queues and locks handle cancellation?"
RUN_TIMEOUT = 180.0
# The prompts that cite sources, by the schema they ask for.
CITING = ("ChatReply", "FindingDraft", "SupervisorReview", "ReportDraft", "Critique")


@pytest.fixture
def site() -> Iterator[SearchSite]:
    yield from running_search_site(COMMUNITY)


def tiered_settings(tmp_path: Path, site: SearchSite, **more) -> Settings:
    tiers = tmp_path / "tiers.json"
    tiers.write_text(json.dumps(TIERS), encoding="utf-8")
    return Settings(
        data_dir=tmp_path / "data",
        search_provider="searxng",
        searxng_url=site.origin,
        fetch_allowed_hosts=site.hosts,
        source_tiers_file=tiers,
        **more,
    )


def community_pages_read(site: SearchSite, since: int = 0) -> set[str]:
    return {path for path in site.page_hits(since) if path in COMMUNITY}


def run(api: httpx.Client, body: dict) -> dict:
    response = api.post("/api/research", json=body)
    assert response.status_code in (200, 202), response.text
    view = wait_terminal(api, response.json()["session_id"], RUN_TIMEOUT)
    assert view["status"] == "completed", view
    return view


def report_of(api: httpx.Client, view: dict) -> dict:
    response = api.get(f"/api/research/{view['session_id']}/report", params={"format": "json"})
    assert response.status_code == 200, response.text
    return response.json()


def test_a_strict_deep_research_reads_and_cites_no_tier_3_to_5_source_in_any_phase(
    start_devhost, tmp_path: Path, site: SearchSite
) -> None:
    options = {
        "source_policy": "strict",
        "num_agents": 2,
        "agent_max_steps": 3,
        "search_iterations": 1,
        "max_iterations": 4,
        "enable_clarifying_questions": False,
        "run_deep_search_first": True,
    }
    with FakeOpenAIServer(schema_aware_responder) as llm:
        settings = tiered_settings(
            tmp_path, site, openai_base_url=llm.base_url, openai_api_key="test"
        )
        host = start_devhost(settings)
        with httpx.Client(base_url=host.url, timeout=30) as api:
            view = run(api, {"query": QUESTION, "mode": "deep_research", "options": options})
            report = report_of(api, view)
        prompts = [(schema_of(r), r.prompt_text) for r in llm.requests]

    # The search offered forum pages (so strict had something to leave out) ...
    offered = {urlsplit(url).hostname for _, urls in site.searches for url in urls}
    assert offered == {"127.0.0.1", "localhost"}, offered
    # ... and no phase read one: not the deep search, not a researcher.
    assert site.page_hits(), "the run read pages"
    assert community_pages_read(site) == set()
    # Every source the report and the deep search cite is an official (tier 1) page.
    assert report["sources"], report
    for source in report["sources"]:
        assert urlsplit(source["url"]).hostname == "127.0.0.1", source
        assert source["tier"] == 1, source
    memory = host.settings.data_dir / "memory" / view["session_id"]
    deep_search = json.loads((memory / "deep_search.json").read_text(encoding="utf-8"))
    assert deep_search["sources"] and {s["tier"] for s in deep_search["sources"]} == {1}
    # Every prompt that cites says the policy: the deep search's answer, the finding
    # writer, the supervisor, the report writer and the critic.
    asked = {name for name, _ in prompts}
    assert set(CITING) <= asked, asked
    for name, text in prompts:
        if name in CITING:
            assert SOURCE_POLICY_RULES["strict"] in text, name
    assert view["source_policy"] == {"policy": "strict", "chosen_by": "request", "keyword": None}


def test_the_question_picks_the_policy_when_the_request_names_none(
    start_devhost, tmp_path: Path, site: SearchSite
) -> None:
    host = start_devhost(tiered_settings(tmp_path, site, reasoner="offline"))
    with httpx.Client(base_url=host.url, timeout=30) as api:
        before = len(site.server.requests)
        verify = run(api, {"query": f"Verify: {QUESTION}", "mode": "search"})
        strict_community = community_pages_read(site, before)

        before = len(site.server.requests)
        trend = run(api, {"query": f"{QUESTION} What is the trend?", "mode": "search"})
        monitor_community = community_pages_read(site, before)

        chosen = run(
            api,
            {
                "query": f"Verify: {QUESTION}",
                "mode": "search",
                "options": {"source_policy": "discovery"},
            },
        )
        plain = run(api, {"query": QUESTION, "mode": "search"})

    assert verify["source_policy"] == {
        "policy": "strict",
        "chosen_by": "keyword",
        "keyword": "verify",
    }
    assert trend["source_policy"] == {
        "policy": "monitor",
        "chosen_by": "keyword",
        "keyword": "trend",
    }
    assert chosen["source_policy"] == {
        "policy": "discovery",
        "chosen_by": "request",
        "keyword": None,
    }
    assert plain["source_policy"] == {
        "policy": "discovery",
        "chosen_by": "default",
        "keyword": None,
    }
    # The detected policy is the one that ran: strict read official pages only, while
    # monitor, which keeps both ends on purpose, read forum pages too.
    assert strict_community == set()
    assert monitor_community, "monitor keeps the community sources it contrasts"
