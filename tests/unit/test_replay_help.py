"""Replays for issue 29 item 3: a researcher's question to the supervisor waits for the
next review, whose answer's todo joins the queue for that agent; a question no review
is left to answer is named in the warnings. Same harness as ``test_replay_orchestrators``."""

from __future__ import annotations

import json
from typing import Any

from devhost import history as h
from shared.core import names
from shared.core.payloads import ResearcherOut, SupervisorOut
from shared.core.research_models import HelpRequest, NewTodo
from tests.fakes.durable_history import function_names, replay
from tests.unit.test_replay_orchestrators import ACTIVITY_CALLS, ORCHESTRATORS, research, respond

QUESTION = "Every search for 'Basics' found nothing: how should I reformulate?"
ANSWER = "Supervisor's answer: search 'generators yield' instead."


def agent_1_asks(name: str, request: Any) -> Any:
    """Agent 1's first todo ends with a question; a review holding it answers with a todo."""
    if name == names.RUN_RESEARCHER and request["todo"]["id"] == "todo-1":
        out = ResearcherOut.model_validate(respond(name, request))
        out.help = HelpRequest(agent_id=1, todo_id="todo-1", topic_id=1, question=QUESTION)
        return out.model_dump(mode="json")
    if name == names.SUPERVISOR_REVIEW and request["help_requests"]:
        (asked,) = request["help_requests"]
        todo = NewTodo(topic_id=1, instruction=ANSWER, queries=["generators yield"], agent_id=1)
        out = SupervisorOut(decision="continue", new_todos=[todo], answered=[asked["todo_id"]])
        return out.model_dump(mode="json")
    return respond(name, request)


def test_the_next_review_answers_the_question_and_its_todo_runs_for_that_agent() -> None:
    flow = research(enable_clarifying_questions=False)
    flow.run_activities(agent_1_asks)

    assert flow.done and flow.output["status"] == "completed"
    reviews = [s.input for s in flow.scheduled if s.name == names.SUPERVISOR_REVIEW]
    holding = [r for r in reviews if r["help_requests"]]
    assert len(holding) == 1  # answered once, then no longer pending
    assert holding[0]["help_requests"][0]["question"] == QUESTION
    todos = [s.input["todo"] for s in flow.scheduled if s.name == names.RUN_RESEARCHER]
    (answer_todo,) = [t for t in todos if t["instruction"] == ANSWER]
    assert answer_todo["agent_id"] == 1 and answer_todo["queries"] == ["generators yield"]
    assert answer_todo["topic"] == "Basics"  # the asking todo's topic
    warnings = [w["message"] for w in flow.custom_status["warnings"]]
    assert not any("asked for help" in w for w in warnings)


def test_a_question_no_review_is_left_to_answer_is_named() -> None:
    flow = research(enable_clarifying_questions=False, max_supervisor_calls=0)
    flow.run_activities(agent_1_asks)

    assert flow.done and flow.output["status"] == "completed"
    assert names.SUPERVISOR_REVIEW not in flow.names_scheduled()
    warnings = [w["message"] for w in flow.custom_status["warnings"]]
    assert "agent 1 asked for help on todo-1; unanswered" in warnings


def test_replaying_a_history_with_a_question_yields_the_same_actions() -> None:
    flow = research(enable_clarifying_questions=False)
    flow.run_activities(agent_1_asks)
    assert flow.done

    state = replay(ORCHESTRATORS[names.DEEP_RESEARCH], json.dumps(flow.input), flow.history)
    recorded = [e["Name"] for e in flow.history if e["EventType"] == h.EventType.TASK_SCHEDULED]
    assert function_names(state, kinds=ACTIVITY_CALLS) == recorded
    assert state["isDone"] and state["output"] == flow.output
