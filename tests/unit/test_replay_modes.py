"""Replays for issue 30's orchestration changes: effort per question, strict without a
fallback inside a deep research, follow-up questions only on a mode's own answer.

Same harness as ``test_replay_orchestrators.py`` (the SDK's executor over
scripted histories); what is asserted is what the orchestrator schedules.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from shared.core import names
from shared.core.payloads import AnswerOut, PlanResearchOut, SelectSourcesOut, WebSearchOut
from shared.core.research_models import QueryAnalysis, ResearchPlan, ResearchTopic
from shared.core.session_models import Usage
from shared.core.source_models import SearchResult
from tests.fakes.durable_history import replay
from tests.unit.test_replay_orchestrators import ORCHESTRATORS, research, respond, run, start_input


def planned(steps: int | None, query_type: str = "fact") -> Any:
    """``respond``, with a plan whose analysis scales the researchers to ``steps``."""
    topics = [ResearchTopic(id=1, title="Basics"), ResearchTopic(id=2, title="Uses")]

    def responder(name: str, request: Any) -> Any:
        if name != names.PLAN_RESEARCH:
            return respond(name, request)
        analysis = QueryAnalysis(query_type=query_type, complexity="simple")
        out = PlanResearchOut(
            analysis=analysis, plan=ResearchPlan(topics=topics), num_agents=2, agent_steps=steps
        )
        return out.model_dump(mode="json")

    return responder


def researcher_steps(steps: int | None, **options: Any) -> list[int]:
    flow = research(enable_clarifying_questions=False, **options).run_activities(planned(steps))
    assert flow.done and flow.output["status"] == "completed"
    return [s.input["max_steps"] for s in flow.scheduled if s.name == names.RUN_RESEARCHER]


def test_a_simple_question_gets_fewer_researcher_steps_than_a_comparison() -> None:
    simple = researcher_steps(3)
    comparison = researcher_steps(5)

    assert simple and set(simple) == {3}
    assert comparison and set(comparison) == {5}


def test_the_caps_stay_the_ceiling_and_old_histories_keep_them() -> None:
    assert set(researcher_steps(12, agent_max_steps=4)) == {4}  # the plan asked for more
    assert set(researcher_steps(None, agent_max_steps=4)) == {4}  # a plan from before item 5


def test_planning_is_told_the_step_ceiling() -> None:
    flow = research(enable_clarifying_questions=False, agent_max_steps=7)
    flow.run_activities(planned(3))
    plan = next(s for s in flow.scheduled if s.name == names.PLAN_RESEARCH)
    assert plan.input["max_steps"] == 7


def test_the_scaled_steps_replay_to_the_same_actions() -> None:
    inp = start_input("deep_research", run_deep_search_first=False)
    flow = run(names.DEEP_RESEARCH, inp).run_activities(planned(3))
    flow.raise_event(names.CLARIFICATION_EVENT, {"answers": ["any"]})  # the run waits for it
    flow.run_activities(planned(3))
    assert flow.done
    steps = [s.input["max_steps"] for s in flow.scheduled if s.name == names.RUN_RESEARCHER]
    assert steps and set(steps) == {3}

    state = replay(ORCHESTRATORS[names.DEEP_RESEARCH], json.dumps(inp), flow.history)
    assert state["isDone"] and state["output"] == flow.output


def with_a_source(name: str, request: Any) -> Any:
    """``respond``, with one page selected so the flow reads and synthesizes."""
    if name == names.SELECT_SOURCES:
        page = SearchResult(url="https://docs.python.org/3/", tier=1)
        return SelectSourcesOut(selected=[page]).model_dump(mode="json")
    return respond(name, request)


@pytest.mark.parametrize("mode", ["search", "deep_search"])
def test_a_mode_falls_back_and_asks_for_follow_up_questions(mode: str) -> None:
    inp = start_input(mode, source_policy="strict", search_iterations=1)
    flow = run(names.SEARCH if mode == "search" else names.DEEP_SEARCH, inp)
    flow.run_activities(with_a_source)

    select = next(s for s in flow.scheduled if s.name == names.SELECT_SOURCES)
    assert (select.input["policy"], select.input["fallback"]) == ("strict", True)
    synthesize = next(s for s in flow.scheduled if s.name == names.SYNTHESIZE)
    assert synthesize.input["policy"] == "strict"
    assert synthesize.input["follow_up_questions"] is True


def test_a_deep_research_deep_search_never_falls_back_and_asks_no_questions() -> None:
    inp = json.loads(json.dumps(start_input("deep_search", source_policy="strict")))
    inp["as_phase"] = True
    flow = run(names.DEEP_SEARCH, inp).run_activities(with_a_source)

    assert flow.done
    selects = [s for s in flow.scheduled if s.name == names.SELECT_SOURCES]
    assert selects and all(s.input["fallback"] is False for s in selects)
    synthesize = next(s for s in flow.scheduled if s.name == names.SYNTHESIZE)
    assert synthesize.input["policy"] == "strict"
    assert synthesize.input["follow_up_questions"] is False
    assert AnswerOut.model_validate(flow.output["answer"]).answer_ref == "s1/answer.md"


def _searches_that_spend(name: str, request: Any) -> Any:
    """A search that asked the model (the corrective judge) and says what it spent."""
    if name == names.WEB_SEARCH:
        spent = Usage(llm_calls=1, prompt_tokens=100, cost=0.5)
        return WebSearchOut(results=[], usage=spent).model_dump(mode="json")
    return with_a_source(name, request)


@pytest.mark.parametrize("mode", ["search", "deep_search"])
def test_what_a_search_spends_counts_in_the_sessions_usage(mode: str) -> None:
    inp = start_input(mode, search_iterations=1)
    name = names.SEARCH if mode == "search" else names.DEEP_SEARCH
    flow = run(name, inp).run_activities(_searches_that_spend)
    assert flow.done
    searches = sum(1 for s in flow.scheduled if s.name == names.WEB_SEARCH)
    complete = next(s for s in flow.scheduled if s.name == names.COMPLETE_SESSION)
    assert searches and complete.input["usage"]["llm_calls"] >= searches
    assert complete.input["usage"]["cost"] >= 0.5 * searches

    state = replay(ORCHESTRATORS[name], json.dumps(inp), flow.history)
    assert state["isDone"] and state["output"] == flow.output
