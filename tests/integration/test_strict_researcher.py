"""A researcher under the strict policy (issue 30, item 2), through real components.

``run_researcher`` with the composition root's services: the real SearXNG
adapter against ``tests.fakes.search_site`` (its forum half linked as
``localhost``, tier 5 by ``SOURCE_TIERS_FILE``), the real fetcher, and the LLM
reasoner against the OpenAI-protocol fake. A search that strict leaves empty
must not fall back to the forum pages: the agent is told, so it reformulates.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from shared.bootstrap import AppServices
from shared.core.config import Settings
from shared.core.payloads import ResearcherIn
from shared.core.research_models import AgentProfile, ResearchContext, Todo
from shared.usecases.research.researcher import STRICT_EMPTY, run_researcher
from tests.fakes.openai_server import FakeOpenAIServer, schema_aware_responder
from tests.fakes.search_site import TIERS, SearchSite, running_search_site

# Only forum pages share a word with this question on the fixture site.
QUESTION = "gather queues semaphore locks"
COMMUNITY = frozenset(
    {"/forum/gather-vs-taskgroup", "/guide/gather", "/guide/queues", "/guide/synchronization"}
)


@pytest.fixture
def site() -> Iterator[SearchSite]:
    yield from running_search_site(COMMUNITY)


def researcher(policy: str) -> ResearcherIn:
    context = ResearchContext(session_id="s1", query=QUESTION, source_policy=policy)
    todo = Todo(id="todo-1", agent_id=1, topic_id=1, topic="Concurrency primitives")
    profile = AgentProfile(agent_id=1, name="Ada", specialization="asyncio")
    return ResearcherIn(context=context, profile=profile, todo=todo, max_steps=3, item="items/i1")


def services(tmp_path: Path, site: SearchSite, llm: FakeOpenAIServer) -> AppServices:
    tiers = tmp_path / "tiers.json"
    tiers.write_text(json.dumps(TIERS), encoding="utf-8")
    return AppServices(
        Settings(
            data_dir=tmp_path / "data",
            openai_base_url=llm.base_url,
            openai_api_key="test",
            search_provider="searxng",
            searxng_url=site.origin,
            fetch_allowed_hosts=site.hosts,
            source_tiers_file=tiers,
        )
    )


def test_a_search_strict_leaves_empty_tells_the_agent_and_reads_no_forum_page(
    tmp_path: Path, site: SearchSite
) -> None:
    with FakeOpenAIServer(schema_aware_responder) as llm:
        out = run_researcher(services(tmp_path, site, llm), researcher("strict"))
        steps = [r.prompt_text for r in llm.requests if "step 2 of at most" in r.prompt_text]

    assert site.searches and all(urls for _, urls in site.searches)  # the site offered forums
    assert site.page_hits() == {}  # none was read
    assert out.ok and out.source_urls == []
    (second,) = steps
    offered = len(site.searches[0][1])
    assert STRICT_EMPTY.format(count=offered) in second
    assert "localhost" not in second  # no forum URL reached the agent


def test_discovery_lets_the_agent_read_the_same_forum_pages(
    tmp_path: Path, site: SearchSite
) -> None:
    with FakeOpenAIServer(schema_aware_responder) as llm:
        out = run_researcher(services(tmp_path, site, llm), researcher("discovery"))

    assert set(site.page_hits()) <= COMMUNITY and site.page_hits()
    assert out.ok and out.source_urls
