"""Replays for issue 29 items 4 and 5: the analyst before the writer, its one bounded
search round, a critic's REJECT that names missing information, and the chain's
stages in the custom status (what the status and the SSE stream show).

Same harness as ``test_replay_orchestrators.py`` (the SDK's executor over scripted
histories); what is asserted is what the orchestrator schedules and publishes.
"""

from __future__ import annotations

import json
from typing import Any

from devhost import history as h
from orchestrators.analysis_chain import (
    ANALYST_ROUNDS,
    MAX_STAGES,
    PREVIEW_BYTES,
    SEARCH_ROUNDS,
    within_budget,
)
from orchestrators.deep_research import CRITIC_ROUNDS
from shared.core import names
from shared.core.analysis_models import ChainStage
from shared.core.chain_payloads import AnalystOut
from shared.core.payloads import CritiqueOut
from tests.fakes.durable_history import function_names, replay
from tests.unit.test_replay_orchestrators import ACTIVITY_CALLS, ORCHESTRATORS, research, respond

MISSING = ["No figure for the memory cost of a suspended generator."]
QUERIES = ["generator frame memory size", "suspended generator memory", "third query"]


def analyst_asking(name: str, request: Any) -> Any:
    """Every analysis asks for more searches (only the first may get them)."""
    if name == names.ANALYZE_FINDINGS:
        out = AnalystOut(
            verdict="SEARCH_REQUIRED",
            new_queries=QUERIES,
            topic_ids=[2, 0, 0],  # the first query searches for planned topic 2
            missing_information=MISSING,
            preview="SEARCH_REQUIRED: generators pause at yield [1]",
        )
        return out.model_dump(mode="json")
    return respond(name, request)


def scheduled(flow: Any, name: str) -> list[dict[str, Any]]:
    return [s.input for s in flow.scheduled if s.name == name]


def test_an_analyst_asking_for_searches_gets_exactly_one_bounded_round() -> None:
    flow = research(enable_clarifying_questions=False, max_iterations=5)
    flow.run_activities(analyst_asking)

    assert flow.done and flow.output["status"] == "completed"
    order = flow.names_scheduled()
    analyses = scheduled(flow, names.ANALYZE_FINDINGS)
    assert [a["iteration"] for a in analyses] == [1, ANALYST_ROUNDS]  # again after the round
    researchers = scheduled(flow, names.RUN_RESEARCHER)
    extra = researchers[2:]  # the plan's two todos ran first
    # one researcher per query, at most one per agent of the team (two agents)
    assert [r["todo"]["queries"] for r in extra] == [[QUERIES[0]], [QUERIES[1]]]
    assert MISSING[0] in extra[0]["todo"]["instruction"]
    assert [r["todo"]["topic_id"] for r in extra] == [2, 0]  # its finding covers topic 2
    assert [r["item"] for r in extra] == ["items/item_3", "items/item_4"]
    assert [r["todo"]["id"] for r in extra] == ["todo-3", "todo-4"]
    first_analysis = order.index(names.ANALYZE_FINDINGS)
    rest = order[first_analysis:]
    assert rest[:6] == [
        names.ANALYZE_FINDINGS,
        names.RUN_RESEARCHER,
        names.RUN_RESEARCHER,
        names.FOLD_LATE_FINDINGS,
        names.COMPRESS_FINDINGS,
        names.ANALYZE_FINDINGS,
    ]
    assert rest[6] == names.GENERATE_FINAL_REPORT  # the second SEARCH_REQUIRED runs nothing
    (fold,) = scheduled(flow, names.FOLD_LATE_FINDINGS)
    assert fold["finding_refs"] == ["s1/items/item_3.json", "s1/items/item_4.json"]
    recompress = scheduled(flow, names.COMPRESS_FINDINGS)[-1]
    assert recompress["finding_refs"][-2:] == fold["finding_refs"]
    assert len(researchers) == 2 + 2 and SEARCH_ROUNDS == 1


def test_no_search_round_when_max_iterations_is_spent() -> None:
    flow = research(enable_clarifying_questions=False, max_iterations=2)
    flow.run_activities(analyst_asking)

    assert flow.done and flow.output["status"] == "completed"
    assert len(scheduled(flow, names.RUN_RESEARCHER)) == 2
    assert len(scheduled(flow, names.ANALYZE_FINDINGS)) == 1
    warnings = [w["message"] for w in flow.custom_status["warnings"]]
    assert any("no researcher runs are left (max_iterations)" in w for w in warnings)


def critic_missing_information(name: str, request: Any) -> Any:
    """The analyst is satisfied; the critic rejects the first version for a missing fact."""
    if name == names.CRITIQUE_REPORT:
        rejected = not critic_missing_information.rejected
        critic_missing_information.rejected = True
        out = CritiqueOut(
            issues=["Section 2 claims a speed-up no source measures."] if rejected else [],
            logical_gaps=["Section 2 takes a correlation for a cause."] if rejected else [],
            missing_information=["generator benchmark CPython 3.12"] if rejected else [],
            verdict="REJECT" if rejected else "PASS",
        )
        return out.model_dump(mode="json")
    return respond(name, request)


def test_a_reject_naming_missing_information_runs_the_round_before_the_rewrite() -> None:
    critic_missing_information.rejected = False
    flow = research(enable_clarifying_questions=False, max_iterations=5)
    flow.run_activities(critic_missing_information)

    assert flow.done and flow.output["status"] == "completed"
    order = flow.names_scheduled()
    extra = scheduled(flow, names.RUN_RESEARCHER)[2:]
    assert [r["todo"]["queries"] for r in extra] == [["generator benchmark CPython 3.12"]]
    first_critique = order.index(names.CRITIQUE_REPORT)
    rewrite = order.index(names.GENERATE_FINAL_REPORT, first_critique)
    between = order[first_critique:rewrite]
    assert between.count(names.RUN_RESEARCHER) == 1 and names.ANALYZE_FINDINGS in between
    rewrites = scheduled(flow, names.GENERATE_FINAL_REPORT)
    critique = rewrites[1]["critique"]  # the whole assessment reaches the writer
    assert critique["logical_gaps"] == ["Section 2 takes a correlation for a cause."]
    assert critique["verdict"] == "REJECT"


def test_the_chain_stages_are_in_the_custom_status() -> None:
    critic_missing_information.rejected = False
    flow = research(enable_clarifying_questions=False, max_iterations=2)
    flow.run_activities(critic_missing_information)

    chain = flow.custom_status["chain"]
    stages = [(c["role"], c["stage"], c["iteration"], c["of"]) for c in chain]
    assert stages == [
        ("analyst", "analyst_analyzing", 1, ANALYST_ROUNDS),
        ("analyst", "analyst_draft_ready", 1, ANALYST_ROUNDS),
        ("writer", "writer_composing", 1, 1),
        ("critic", "critic_reviewing", 1, CRITIC_ROUNDS),
        ("critic", "critic_review_complete", 1, CRITIC_ROUNDS),
        ("writer", "writer_revising", 1, CRITIC_ROUNDS),
        ("critic", "critic_reviewing", 2, CRITIC_ROUNDS),
        ("critic", "critic_review_complete", 2, CRITIC_ROUNDS),
    ]
    review = chain[4]
    assert review["status"] == "REJECT"
    assert review["preview"] == (
        "Section 2 claims a speed-up no source measures. Section 2 takes a correlation for a cause."
    )
    assert chain[1]["status"] == "READY" and chain[-1]["status"] == "PASS"


def test_replaying_a_history_with_the_search_round_yields_the_same_actions() -> None:
    flow = research(enable_clarifying_questions=False, max_iterations=5)
    flow.run_activities(analyst_asking)
    assert flow.done

    state = replay(ORCHESTRATORS[names.DEEP_RESEARCH], json.dumps(flow.input), flow.history)
    recorded = [e["Name"] for e in flow.history if e["EventType"] == h.EventType.TASK_SCHEDULED]
    assert recorded.count(names.ANALYZE_FINDINGS) == 2
    assert function_names(state, kinds=ACTIVITY_CALLS) == recorded
    assert state["isDone"] and state["output"] == flow.output


def test_the_chain_keeps_the_custom_status_small_whatever_the_previews_language() -> None:
    stage = ChainStage(role="critic", stage="critic_review_complete", preview="批" * 153)
    chain = within_budget([stage.model_copy(update={"iteration": i}) for i in range(MAX_STAGES)])

    previews = [c.preview for c in chain]
    assert previews[-1] == "批" * 153  # the newest stage keeps its preview
    assert sum(len(json.dumps(p)) for p in previews) <= PREVIEW_BYTES
    assert previews[0] == "" and [c.iteration for c in chain] == list(range(MAX_STAGES))
