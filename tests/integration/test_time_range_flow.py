"""Time ranges through the deep research flow (issue 30, item 3), through real components.

The planning step with the LLM reasoner against the OpenAI-protocol fake, then
a researcher with the real SearXNG adapter against ``tests.fakes.search_site``
(which records every search's query parameters). A period no rule knows ("the
winter before last") is read by the model; the range then limits the
researcher's searches and is said in the analysis, agent and search answer prompts. A
question that names no time costs no extra model call.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from shared.adapters.reasoning.llm import LLMReasoner
from shared.bootstrap import AppServices
from shared.core.config import Settings
from shared.core.payloads import PlanResearchIn, ResearcherIn
from shared.core.research_models import AgentProfile, ResearchContext, Todo
from shared.core.source_models import PageSummary, TimeRange
from shared.usecases.research.phases import plan_research
from shared.usecases.research.researcher import run_researcher
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    RecordedRequest,
    Reply,
    json_completion,
    schema_aware_responder,
)
from tests.fakes.search_site import SearchSite, running_search_site

UNRULED = "How did asyncio event loop adoption change over the winter before last?"
TIMELESS = "How does the asyncio event loop schedule coroutines?"
ASKS_PERIOD = "Which period of time does the question below ask about?"
TODAY = datetime.now(UTC).date()
START, END = TODAY - timedelta(days=20), TODAY - timedelta(days=5)


@pytest.fixture
def site() -> Iterator[SearchSite]:
    yield from running_search_site()


def model(request: RecordedRequest) -> Reply:
    """Reads the period as 20 to 5 days ago; everything else gets a minimal valid reply."""
    if ASKS_PERIOD in request.prompt_text:
        reading = {"reason": "the named winter", "is_temporal": True}
        return json_completion(
            {**reading, "start_date": START.isoformat(), "end_date": END.isoformat()}
        )
    return schema_aware_responder(request)


def services(tmp_path: Path, site: SearchSite, llm: FakeOpenAIServer) -> AppServices:
    return AppServices(
        Settings(
            data_dir=tmp_path / "data",
            openai_base_url=llm.base_url,
            openai_api_key="test",
            search_provider="searxng",
            searxng_url=site.origin,
            fetch_allowed_hosts=site.hosts,
        )
    )


def plan_then_research(svc: AppServices, question: str) -> ResearchContext:
    context = ResearchContext(session_id="s1", query=question)
    planned = plan_research(svc, PlanResearchIn(context=context, max_agents=1, max_steps=3))
    context.time_range = planned.time_range  # as the orchestrator keeps it
    todo = Todo(id="todo-1", agent_id=1, topic_id=1, topic="Event loop adoption")
    profile = AgentProfile(agent_id=1, name="Ada", specialization="asyncio")
    request = ResearcherIn(
        context=context, profile=profile, todo=todo, max_steps=3, item="items/item_1"
    )
    assert run_researcher(svc, request).ok
    return context


def test_a_period_no_rule_knows_is_read_by_the_model_and_limits_researcher_searches(
    tmp_path: Path, site: SearchSite
) -> None:
    with FakeOpenAIServer(model) as llm:
        context = plan_then_research(services(tmp_path, site, llm), UNRULED)
        prompts = [r.prompt_text for r in llm.requests]

    assert context.time_range is not None
    assert (context.time_range.start, context.time_range.end) == (
        START.isoformat(),
        END.isoformat(),
    )
    assert sum(ASKS_PERIOD in p for p in prompts) == 1
    assert site.params and all(p.get("time_range") == ["month"] for p in site.params)
    line = f"Time range: {START.isoformat()} to {END.isoformat()}"
    analysis = next(p for p in prompts if "query_type" in p)
    steps = [p for p in prompts if "step 1 of at most" in p]
    assert line in analysis and steps and all(line in p for p in steps)


def test_a_question_that_names_no_time_asks_the_model_nothing_and_searches_unlimited(
    tmp_path: Path, site: SearchSite
) -> None:
    with FakeOpenAIServer(model) as llm:
        context = plan_then_research(services(tmp_path, site, llm), TIMELESS)
        prompts = [r.prompt_text for r in llm.requests]

    assert context.time_range is None
    assert not any(ASKS_PERIOD in p for p in prompts)
    assert site.params and all("time_range" not in p for p in site.params)
    assert not any("Time range:" in p for p in prompts)


def test_the_search_answer_prompt_names_the_period() -> None:
    period = TimeRange(start=START.isoformat(), end=END.isoformat(), label="model")
    summary = PageSummary(url="https://example.org/a", title="A", summary="Loops got faster.")
    with FakeOpenAIServer(schema_aware_responder) as llm:
        reasoner = LLMReasoner(Settings(openai_base_url=llm.base_url, openai_api_key="test"))
        reasoner.synthesize(UNRULED, [summary], "en", 50, 100, time_range=period)
        reasoner.synthesize(TIMELESS, [summary], "en", 50, 100)
        with_period, without = (r.prompt_text for r in llm.requests)

    assert f"Time range: {START.isoformat()} to {END.isoformat()}" in with_period
    assert "Time range:" not in without
