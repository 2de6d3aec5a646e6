"""Offline: when a researcher asks the supervisor (every search came back empty and nothing
is left to try) and how the supervisor answers (a reformulated todo, never a query tried)."""

from __future__ import annotations

from shared.adapters.reasoning.offline_help import answer_help
from shared.adapters.reasoning.offline_research import agent_step
from shared.core.research_models import (
    AgentProfile,
    AgentState,
    HelpRequest,
    Observation,
    ResearchContext,
    ResearchPlan,
    ResearchTopic,
    Todo,
)
from shared.core.source_models import SearchResult

CONTEXT = ResearchContext(session_id="s1", query="How do Python generators work?")
TODO = Todo(id="todo-1", agent_id=1, topic_id=1, topic="Frames", queries=["generator frames"])


def state(*observations: Observation, step: int = 1, max_steps: int = 5) -> AgentState:
    profile = AgentProfile(agent_id=1, name="a", specialization="x")
    return AgentState(
        context=CONTEXT,
        profile=profile,
        todo=TODO,
        step=step,
        max_steps=max_steps,
        observations=list(observations),
    )


def empty(query: str) -> Observation:
    return Observation(tool="web_search", argument=query, note="no results: reformulate")


def test_a_researcher_whose_searches_all_came_back_empty_asks_the_supervisor() -> None:
    asks = agent_step(state(empty("generator frames")))
    found = SearchResult(url="https://a.example", title="a", snippet="s")
    reads = agent_step(state(Observation(tool="web_search", argument="x", results=[found])))
    tries_next = agent_step(state(empty("something else")))  # a planned query is left
    last = agent_step(state(empty("something else"), step=4, max_steps=5))

    assert asks.tool == "ask_supervisor" and "'Frames'" in asks.argument
    assert reads.tool != "ask_supervisor"  # it found something: it works on
    assert tries_next.tool == "web_search" and tries_next.argument == "generator frames"
    assert last.tool == "ask_supervisor"  # the step budget is spent: nothing left to try


def test_the_offline_supervisor_answers_with_queries_the_agent_did_not_try() -> None:
    plan = ResearchPlan(topics=[ResearchTopic(id=1, title="Frames", queries=["frame objects"])])
    asked = HelpRequest(
        agent_id=1, todo_id="todo-1", topic_id=1, question="?", tried=["Python generators Frames"]
    )

    reply = answer_help(CONTEXT, plan, asked)
    spent = answer_help(
        CONTEXT,
        plan,
        asked.model_copy(
            update={
                "tried": [
                    "Python generators Frames",
                    "Frames",
                    "Python generators",
                    "frame objects",
                ]
            }
        ),
    )

    assert reply.new_todo is not None
    assert reply.new_todo.queries == ["Frames", "Python generators"]
    assert reply.new_todo.agent_id == 1 and reply.new_todo.topic_id == 1
    assert "'Frames'" in reply.answer and "instead of 'Python generators Frames'" in reply.answer
    assert spent.new_todo is None and "leave this topic open" in spent.answer
