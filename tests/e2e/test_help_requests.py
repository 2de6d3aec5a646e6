"""Issue 29 item 3 end to end: devhost + the OpenAI-protocol fake over HTTP, nothing patched.

The fake researcher on topic 1 asks the supervisor for help at its first step; the
supervisor's next review answers (advice and a new todo); the exchange is in
supervisor.md and the agent's file, and the new todo runs for that agent.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.e2e.test_deep_research_memory import folder, run_research
from tests.e2e.test_faults import llm_settings, schema_of, two_agent_responder
from tests.e2e.test_llm_deep_research import RUN_TIMEOUT
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    FirstTime,
    RecordedRequest,
    Reply,
    Responder,
    json_completion,
)

pytestmark = pytest.mark.e2e

QUERY = "How does the Python global interpreter lock affect threads?"
QUESTION = "Nothing on this topic turns up: should I search the CPython source instead?"
ANSWER = "Yes: search the CPython documentation for the eval loop's GIL drop request."
NEW_QUERY = "CPython eval breaker gil_drop_request"
OPTIONS = {
    "num_agents": 2,
    "agent_max_steps": 3,
    "max_iterations": 6,
    "run_deep_search_first": False,
    "enable_clarifying_questions": False,
}


def asking_agent() -> Responder:
    first_time = FirstTime()

    def respond(request: RecordedRequest) -> Reply:
        name = schema_of(request)
        if name == "AgentAction" and "(topic 1:" in request.prompt_text and first_time():
            action = {"thought": "Two angles gave nothing.", "tool": "ask_supervisor"}
            return json_completion({**action, "argument": QUESTION})
        if name == "HelpAnswer":
            todo = {
                "topic_id": 1,
                "instruction": "Read the eval loop docs.",
                "queries": [NEW_QUERY],
            }
            return json_completion({"answer": ANSWER, "new_todo": {**todo, "agent_id": None}})
        return two_agent_responder(request)

    return respond


def test_an_agents_question_is_answered_in_the_memory_files_and_its_todo_runs(
    start_devhost, tmp_path: Path
) -> None:
    with FakeOpenAIServer(asking_agent()) as server:
        host = start_devhost(llm_settings(tmp_path, server))
        view = run_research(host, QUERY, OPTIONS, timeout=RUN_TIMEOUT)
    assert view["status"] == "completed", view
    root = folder(host, view["session_id"])

    answers = [r for r in server.requests if schema_of(r) == "HelpAnswer"]
    assert len(answers) == 1 and QUESTION in answers[0].prompt_text
    supervisor = (root / "supervisor.md").read_text()
    exchange = supervisor.partition("## Help request from agent ")[2]
    assert f"**Question:** {QUESTION}" in exchange and f"**Answer:** {ANSWER}" in exchange
    assert NEW_QUERY in exchange  # the new todo, with its query
    agent_id = exchange.split(" ", 1)[0]
    agent = (root / "agents" / f"agent_{agent_id}.md").read_text()
    asked_todo = re.search(r"### Help request \((todo-\d+)\)", agent).group(1)
    assert f"**Question:** {QUESTION}" in agent
    assert f"### Supervisor's answer ({asked_todo})\n\n{ANSWER}" in agent
    # the answer's todo ran, for the agent that asked
    ran = [
        r
        for r in server.requests
        if schema_of(r) == "AgentAction" and f"Supervisor's answer: {ANSWER}" in r.prompt_text
    ]
    assert ran and NEW_QUERY in ran[0].prompt_text
    after_answer = agent.partition(f"### Supervisor's answer ({asked_todo})")[2]
    later = re.findall(r"### (todo-\d+): ", after_answer)  # notes of todos done after it
    assert later and asked_todo not in later
    findings = [json.loads(p.read_text()) for p in (root / "items").glob("item_*.json")]
    assert any(f["todo_id"] in later and f["agent_id"] == int(agent_id) for f in findings)
