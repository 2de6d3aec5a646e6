"""Replays for issue 29: a supervisor's "replan" replaces the pending todos with a new
plan's, within every cap; findings no review read are folded into the draft.

Same harness as ``test_replay_orchestrators.py`` (the SDK's executor over
scripted histories); what is asserted is what the orchestrator schedules.
"""

from __future__ import annotations

import json
from typing import Any

from devhost import history as h
from orchestrators.replan import MAX_REPLANS
from shared.core import names
from shared.core.payloads import PlanResearchOut, SpawnAgentsOut, SupervisorOut
from shared.core.replan_models import ReplanOut
from shared.core.research_models import (
    AgentProfile,
    QueryAnalysis,
    ResearchPlan,
    ResearchTopic,
    Todo,
)
from tests.fakes.durable_history import function_names, replay
from tests.unit.test_replay_orchestrators import (
    ACTIVITY_CALLS,
    ORCHESTRATORS,
    research,
    respond,
)

OLD = [ResearchTopic(id=n, title=f"Old {n}") for n in (1, 2, 3)]
NEW = [ResearchTopic(id=n, title=f"New {n}") for n in (4, 5)]
WHY = "The findings are about the wrong library: research asyncio instead."


def one_agent_replanning(name: str, request: Any) -> Any:
    """One agent with three todos; every review says "replan"; the new plan has two topics."""
    if name == names.PLAN_RESEARCH:
        analysis = QueryAnalysis(query_type="open", complexity="moderate")
        out = PlanResearchOut(analysis=analysis, plan=ResearchPlan(topics=OLD), num_agents=1)
        return out.model_dump(mode="json")
    if name == names.SPAWN_AGENTS:
        return SpawnAgentsOut(
            profiles=[AgentProfile(agent_id=1, name="a1", specialization="x")],
            todos=[Todo(id=f"todo-{t.id}", agent_id=1, topic_id=t.id, topic=t.title) for t in OLD],
        ).model_dump(mode="json")
    if name == names.SUPERVISOR_REVIEW:
        return SupervisorOut(decision="replan", notes=WHY).model_dump(mode="json")
    if name == names.REPLAN_RESEARCH:
        first = request["first_todo"]
        todos = [
            Todo(id=f"todo-{first + k}", agent_id=1, topic_id=t.id, topic=t.title)
            for k, t in enumerate(NEW[: request["max_todos"]])
        ]
        out = ReplanOut(plan=ResearchPlan(topics=NEW[: request["max_todos"]]), todos=todos)
        return out.model_dump(mode="json")
    return respond(name, request)


def researched(flow: Any) -> list[str]:
    return [s.input["todo"]["topic"] for s in flow.scheduled if s.name == names.RUN_RESEARCHER]


def test_a_replan_replaces_the_pending_todos_with_the_new_plans() -> None:
    flow = research(enable_clarifying_questions=False, max_iterations=5)
    flow.run_activities(one_agent_replanning)

    assert flow.done and flow.output["status"] == "completed"
    replans = [s for s in flow.scheduled if s.name == names.REPLAN_RESEARCH]
    assert len(replans) == MAX_REPLANS  # every review asked; only the first replanned
    asked = replans[0].input
    assert asked["reason"] == WHY and asked["plan"]["topics"][0]["title"] == "Old 1"
    assert asked["first_todo"] == 4 and asked["max_todos"] == 4  # 5 runs, 1 spent
    assert asked["done_topics"] == ["Old 1"]
    assert [t["status"] for t in asked["todos"]] == ["done", "dropped", "dropped"]
    assert [p["agent_id"] for p in asked["idle_profiles"]] == [1]  # its file shows the change
    assert researched(flow) == ["Old 1", "New 4", "New 5"]  # Old 2 and Old 3 were dropped
    reviews = [s.input for s in flow.scheduled if s.name == names.SUPERVISOR_REVIEW]
    assert [t["title"] for t in reviews[-1]["plan"]["topics"]] == ["New 4", "New 5"]
    statuses = {t["topic"]: t["status"] for t in reviews[-1]["todos"]}
    assert statuses["Old 2"] == statuses["Old 3"] == "dropped"
    warnings = [w["message"] for w in flow.custom_status["warnings"]]
    assert any("not replanned: at most 1 replan" in w for w in warnings)


def test_a_replan_never_plans_more_todos_than_researcher_runs_are_left() -> None:
    flow = research(enable_clarifying_questions=False, max_iterations=2)
    flow.run_activities(one_agent_replanning)

    assert flow.done
    (replan,) = [s for s in flow.scheduled if s.name == names.REPLAN_RESEARCH]
    assert replan.input["max_todos"] == 1
    assert researched(flow) == ["Old 1", "New 4"]


def test_no_replan_when_no_researcher_run_is_left() -> None:
    flow = research(enable_clarifying_questions=False, max_iterations=1)
    flow.run_activities(one_agent_replanning)

    assert flow.done and flow.output["status"] == "completed"
    assert names.REPLAN_RESEARCH not in flow.names_scheduled()
    warnings = [w["message"] for w in flow.custom_status["warnings"]]
    assert any("not replanned: no researcher runs are left" in w for w in warnings)


def test_replaying_a_replanned_history_yields_the_same_actions() -> None:
    flow = research(enable_clarifying_questions=False, max_iterations=5)
    flow.run_activities(one_agent_replanning)
    assert flow.done

    state = replay(ORCHESTRATORS[names.DEEP_RESEARCH], json.dumps(flow.input), flow.history)
    recorded = [e["Name"] for e in flow.history if e["EventType"] == h.EventType.TASK_SCHEDULED]
    assert names.REPLAN_RESEARCH in recorded
    assert function_names(state, kinds=ACTIVITY_CALLS) == recorded
    assert state["isDone"] and state["output"] == flow.output


def test_findings_after_the_last_review_are_folded_into_the_draft_before_the_report() -> None:
    flow = research(enable_clarifying_questions=False, max_supervisor_calls=1)
    flow.run_activities(respond)

    assert flow.done and flow.output["status"] == "completed"
    (review,) = [s.input for s in flow.scheduled if s.name == names.SUPERVISOR_REVIEW]
    (fold,) = [s.input for s in flow.scheduled if s.name == names.FOLD_LATE_FINDINGS]
    compress = next(s.input for s in flow.scheduled if s.name == names.COMPRESS_FINDINGS)
    assert fold["finding_refs"] == [
        r for r in compress["finding_refs"] if r != review["finding_ref"]
    ]
    assert len(fold["finding_refs"]) == 1
    order = flow.names_scheduled()
    assert order.index(names.FOLD_LATE_FINDINGS) < order.index(names.GENERATE_FINAL_REPORT)


def test_nothing_is_folded_when_every_finding_was_reviewed() -> None:
    flow = research(enable_clarifying_questions=False)
    flow.run_activities(respond)

    assert flow.done
    assert flow.names_scheduled().count(names.SUPERVISOR_REVIEW) == 2
    assert names.FOLD_LATE_FINDINGS not in flow.names_scheduled()
