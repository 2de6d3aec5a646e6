"""Effort scales with the question (issue 30, item 5), end to end with the offline engine.

The offline analysis judges a one-line fact question simple (3 steps per
researcher) and a comparison worth the most (capped by
``DEEP_RESEARCH_AGENT_MAX_STEPS``); the status shows, per agent, the todos it
finished and the tool calls they took, which is what this test reads.
"""

from __future__ import annotations

import httpx
import pytest

from shared.core.limits import AGENT_MAX_STEPS
from shared.usecases.research.phases import MIN_AGENT_STEPS
from tests.e2e.polling import wait_terminal

pytestmark = pytest.mark.e2e

SIMPLE = "What does the yield keyword do?"
COMPARISON = "Compare lists and tuples in Python"
OPTIONS = {"run_deep_search_first": False, "enable_clarifying_questions": False}


def steps_per_todo(api: httpx.Client, question: str) -> list[float]:
    """Each agent's average tool calls per finished todo, from the session's status."""
    body = {"query": question, "mode": "deep_research", "options": OPTIONS}
    started = api.post("/api/research", json=body)
    assert started.status_code in (200, 202), started.text
    view = wait_terminal(api, started.json()["session_id"], 240)
    assert view["status"] == "completed", view
    agents = view["progress"]["agents"]
    assert agents and all(a["done"] >= 1 for a in agents), agents
    return [a["steps"] / a["done"] for a in agents]


def test_a_simple_question_runs_fewer_researcher_steps_than_a_comparison(api) -> None:
    simple = steps_per_todo(api, SIMPLE)
    comparison = steps_per_todo(api, COMPARISON)

    assert len(simple) == 1 and max(simple) <= MIN_AGENT_STEPS, simple
    assert max(comparison) > MIN_AGENT_STEPS, comparison
    assert max(comparison) <= AGENT_MAX_STEPS.default  # the cap stays the ceiling
