"""Replays of the search flow's completeness check (issue 30, items 6 and 7).

After every round that read pages the flow checks completeness; the next round
searches only the uncovered topics' gap queries (follow-up queries when every topic
is covered or its gap search already ran); a failed content check buys one more
round with the content queries, once; the answer gets the last review.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from shared.core import names
from shared.core.completeness_payloads import CompletenessOut
from shared.core.payloads import QueriesOut, ScrapeOut
from tests.fakes.durable_history import Replay, replay
from tests.unit.test_replay_modes import with_a_source
from tests.unit.test_replay_orchestrators import ORCHESTRATORS, run, start_input

TOPICS = ["Definition of generators", "Examples: generators"]
Judge = Callable[[int], CompletenessOut]


def judged_by(judge: Judge) -> Callable[[str, Any], Any]:
    """Pages are read every round; the completeness check answers ``judge(round)``."""

    def responder(name: str, request: Any) -> Any:
        if name == names.EVALUATE_COMPLETENESS:
            round_n = int(request["name"].rsplit("_", 1)[1])
            out = judge(round_n).model_copy(update={"review_ref": f"s1/{request['name']}.json"})
            return out.model_dump(mode="json")
        if name == names.SCRAPE_PAGE:
            page = ScrapeOut(url=request["url"], ok=True, summary_ref=f"s1/{request['item']}.json")
            return page.model_dump(mode="json")
        if name == names.FOLLOW_UP_QUERIES:
            return QueriesOut(queries=["generator send"]).model_dump(mode="json")
        return with_a_source(name, request)

    return responder


def gaps_then_covered(round_n: int) -> CompletenessOut:
    if round_n == 1:
        return CompletenessOut(topics=TOPICS, covered=1, gap_queries=["generators examples"])
    return CompletenessOut(topics=TOPICS, covered=2)


def searched_by_round(flow: Replay) -> list[list[str]]:
    """The queries of each round: web searches between two source selections."""
    rounds: list[list[str]] = [[]]
    for s in flow.scheduled:
        if s.name == names.WEB_SEARCH:
            rounds[-1].append(s.input["query"])
        elif s.name == names.SELECT_SOURCES:
            rounds.append([])
    return [r for r in rounds if r]


def search(judge: Judge, iterations: int = 2, mode: str = "search") -> Replay:
    inp = start_input(mode, search_iterations=iterations)
    flow = run(names.SEARCH if mode == "search" else names.DEEP_SEARCH, inp)
    return flow.run_activities(judged_by(judge))


@pytest.mark.parametrize("mode", ["search", "deep_search"])
def test_a_gap_is_searched_and_only_the_gap(mode: str) -> None:
    flow = search(gaps_then_covered, mode=mode)

    assert flow.done and flow.output["status"] == "completed"
    assert searched_by_round(flow)[1] == ["generators examples"]  # not the planned queries
    assert names.FOLLOW_UP_QUERIES not in flow.names_scheduled()
    checks = [s.input for s in flow.scheduled if s.name == names.EVALUATE_COMPLETENESS]
    assert [c["topics"] for c in checks] == [[], TOPICS]  # named once, then judged again


def test_every_topic_covered_goes_on_with_follow_up_queries() -> None:
    flow = search(lambda _: CompletenessOut(topics=TOPICS, covered=2))

    assert names.FOLLOW_UP_QUERIES in flow.names_scheduled()
    assert searched_by_round(flow)[1] == ["generator send"]


def test_a_gap_whose_search_already_ran_is_not_searched_again() -> None:
    def same_gap(_: int) -> CompletenessOut:
        return CompletenessOut(topics=TOPICS, covered=1, gap_queries=["generators examples"])

    flow = search(same_gap, iterations=3)

    assert searched_by_round(flow)[1:] == [["generators examples"], ["generator send"]]


def missing_steps(_: int) -> CompletenessOut:
    return CompletenessOut(
        topics=TOPICS, covered=2, missing=["steps"], content_queries=["generators step by step"]
    )


def test_missing_content_buys_one_targeted_round_and_the_answer_gets_the_last_check() -> None:
    flow = search(missing_steps, iterations=1)

    assert searched_by_round(flow)[-1] == ["generators step by step"]
    checks = [s.input["name"] for s in flow.scheduled if s.name == names.EVALUATE_COMPLETENESS]
    assert checks == ["completeness_1", "completeness_2"]  # still missing: no third round
    synthesize = next(s for s in flow.scheduled if s.name == names.SYNTHESIZE)
    assert synthesize.input["completeness_ref"] == "s1/completeness_2.json"


def test_a_failed_check_costs_the_check_only() -> None:
    inp = start_input("search", search_iterations=1)
    flow = run(names.SEARCH, inp)
    responder = judged_by(missing_steps)
    for _ in range(100):
        if flow.done or not flow.activities():
            break
        nxt = flow.next_activity()
        if nxt.name == names.EVALUATE_COMPLETENESS:
            flow.fail_for_good(nxt.task_id, "TransientError: model timed out")
        else:
            flow.complete(nxt.task_id, responder(nxt.name or "", nxt.input))

    assert flow.done and flow.output["status"] == "completed"
    synthesize = next(s for s in flow.scheduled if s.name == names.SYNTHESIZE)
    assert synthesize.input["completeness_ref"] is None
    assert synthesize.input["warnings"] == [
        "the completeness check failed: TransientError: model timed out"
    ]
    assert len(searched_by_round(flow)) == 1  # no content round without a check


def test_replaying_a_checked_search_yields_the_same_actions() -> None:
    inp = start_input("deep_search", search_iterations=3)
    flow = run(names.DEEP_SEARCH, inp).run_activities(judged_by(gaps_then_covered))
    assert flow.done

    state = replay(ORCHESTRATORS[names.DEEP_SEARCH], json.dumps(inp), flow.history)
    assert state["isDone"] and state["output"] == flow.output


def test_strict_falls_back_only_before_any_page_was_read() -> None:
    """A gap round that finds no official page adds nothing rather than a forum page."""
    inp = start_input("search", search_iterations=2, source_policy="strict")
    flow = run(names.SEARCH, inp).run_activities(judged_by(gaps_then_covered))

    selects = [s.input for s in flow.scheduled if s.name == names.SELECT_SOURCES]
    assert [(s["policy"], s["fallback"]) for s in selects] == [("strict", True), ("strict", False)]
