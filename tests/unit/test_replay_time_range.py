"""Deep research keeps the planning step's time range and asks it with the chat (issue 30,
items 3 and 8), replayed.

The planning activity reads the period the question asks about; the
orchestrator must carry it in the research context to every researcher and to
every phase that writes, and a replay of the finished history must schedule
the same calls with the same inputs.
"""

from __future__ import annotations

import json
from typing import Any

from devhost import history as h
from shared.core import names
from shared.core.payloads import PlanQueriesOut, PlanResearchOut
from shared.core.source_models import TimeRange
from tests.fakes.durable_history import function_names, replay
from tests.unit.test_replay_orchestrators import (
    ORCHESTRATORS,
    research,
    respond,
    run,
    start_input,
)

PERIOD = TimeRange(start="2025-12-01", end="2026-02-28", label="model")


def planned_with_a_period(name: str, request: Any) -> Any:
    out = respond(name, request)
    if name == names.PLAN_RESEARCH:
        out = PlanResearchOut.model_validate(out).model_copy(update={"time_range": PERIOD})
        return out.model_dump(mode="json")
    return out


def finished() -> Any:
    flow = research(enable_clarifying_questions=False)
    for _ in range(200):
        if flow.done:
            break
        flow.run_activities(planned_with_a_period)
    assert flow.done
    return flow


def test_the_planned_time_range_reaches_every_researcher_and_writer() -> None:
    flow = finished()

    wanted = PERIOD.model_dump(mode="json")
    later = (names.RUN_RESEARCHER, names.GENERATE_FINAL_REPORT, names.CRITIQUE_REPORT)
    scheduled = [s for s in flow.scheduled if s.name in later]
    assert {s.name for s in scheduled} == set(later)
    for step in scheduled:
        assert step.input["context"]["time_range"] == wanted, step.name
    plan = next(s for s in flow.scheduled if s.name == names.PLAN_RESEARCH)
    assert plan.input["context"]["time_range"] is None  # the planning step reads it


def test_replaying_a_history_with_a_time_range_yields_the_same_actions() -> None:
    flow = finished()

    state = replay(ORCHESTRATORS[names.DEEP_RESEARCH], json.dumps(flow.input), flow.history)
    recorded = [e["Name"] for e in flow.history if e["EventType"] == h.EventType.TASK_SCHEDULED]
    assert function_names(state, kinds=(0, 1)) == recorded
    assert state["isDone"] and state["output"] == flow.output


def test_the_planning_step_is_asked_with_the_chat_so_it_can_reuse_a_decomposition() -> None:
    flow = finished()

    plan = next(s for s in flow.scheduled if s.name == names.PLAN_RESEARCH)
    assert plan.input["chat_id"] == "c1"


def test_the_search_flow_s_time_range_reaches_its_searches_and_its_answer() -> None:
    def planned(name: str, request: Any) -> Any:
        out = respond(name, request)
        if name == names.PLAN_QUERIES:
            plan = PlanQueriesOut.model_validate(out).model_copy(update={"time_range": PERIOD})
            return plan.model_dump(mode="json")
        return out

    flow = run(names.SEARCH, start_input("search"))
    for _ in range(50):
        if flow.done:
            break
        flow.run_activities(planned)

    wanted = PERIOD.model_dump(mode="json")
    later = [s for s in flow.scheduled if s.name in (names.WEB_SEARCH, names.SYNTHESIZE)]
    assert {s.name for s in later} == {names.WEB_SEARCH, names.SYNTHESIZE}
    assert all(s.input["time_range"] == wanted for s in later)
