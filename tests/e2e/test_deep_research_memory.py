"""Deep research through devhost (offline reasoner, local corpus): the memory files every
phase writes, the caps, and the supervisor queue's order, as a user or operator sees them."""

from __future__ import annotations

import itertools
import json
import re
import time
from pathlib import Path

import httpx

from shared.core.config import Settings
from tests.e2e.polling import TERMINAL

QUESTION = "How do context managers and the with statement work in Python?"
# planned wider than the default agents, so an agent gets a second todo after a review
WIDE_QUESTION = "How do for loops and while loops work in Python, including break and continue?"
TASK_SCHEDULED, TASK_COMPLETED = 4, 5


def run_research(host, query: str, options: dict | None = None, timeout: float = 240) -> dict:
    """Start a deep research over the HTTP API and poll its status until it ends."""
    with httpx.Client(base_url=host.url, timeout=30) as client:
        body = {"query": query, "mode": "deep_research", "options": options or {}}
        started = client.post("/api/research", json=body)
        assert started.status_code in (200, 202), started.text
        session_id = started.json()["session_id"]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            view = client.get(f"/api/research/{session_id}").json()
            if view["status"] in TERMINAL:
                return view
            time.sleep(0.3)
    raise AssertionError(f"research {session_id} did not finish in {timeout}s")


def folder(host, session_id: str) -> Path:
    return Path(host.settings.data_dir) / "memory" / session_id


def test_default_run_memory_files_caps_and_queue_order(start_devhost):
    """One default run (runs are the slow part), three observable properties."""
    host = start_devhost()
    view = run_research(host, WIDE_QUESTION)
    assert view["status"] == "completed", view
    check_memory_files(host, view, WIDE_QUESTION)
    check_default_caps_and_next_todo_only_after_review(host, view)


def check_memory_files(host, view: dict, question: str = QUESTION) -> None:
    sid = view["session_id"]
    root = folder(host, sid)

    main = (root / "main.md").read_text()
    assert main.startswith("# Research Session - Main Index")
    assert f"**Query:** {question}" in main and f"**Session ID:** {sid}" in main
    planned = re.findall(
        r"(?m)^- \*\*(.+?)\*\*.* \(Priority: (?:high|medium|low), Estimated sources: \d+\)$", main
    )
    assert 3 <= len(planned) <= 6
    assert "  - search: " in main and "## Key Insights" in main

    agent_files = sorted((root / "agents").glob("agent_*.md"))
    assert agent_files
    for path in agent_files:
        text = path.read_text()
        assert re.match(r"# Agent \d+: \S", text)
        for label in ("**Specialization:**", "**Working style:**", "**Source preferences:**"):
            assert label in text
        todos = re.findall(r"(?m)^- \[(.)\] (todo-\d+) \((\w+)\): ", text)
        assert todos and all(status == "done" and mark == "x" for mark, _, status in todos)
        notes = text.partition("## Notes")[2]
        assert all(f"### {todo}:" in notes for _, todo, _ in todos)

    items = sorted((root / "items").glob("item_*.md"))
    assert items and all(p.read_text().startswith("# Finding: ") for p in items)
    assert all("## Sources" in p.read_text() for p in items)

    supervisor = (root / "supervisor.md").read_text()
    reviews = re.findall(r"(?m)^## Review (\d+) - \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$", supervisor)
    assert reviews and "**Decision:**" in supervisor and "key findings" in supervisor

    draft = (root / "draft_report.md").read_text()
    assert draft.startswith("# Research Report Draft")
    assert f"**Query:** {question}" in draft
    assert re.search(r"\*\*Started:\*\* \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", draft)
    overview = draft.partition("## Overview")[2].partition("<!-- entry:")[0]
    assert overview.strip() and not re.search(r"\[\d+\]", overview)  # no foreign numbering
    sections = re.findall(r"(?m)^## (.+) - \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$", draft)
    assert len(sections) == len(reviews) and set(sections) <= set(planned)


def test_caps_hold_and_agents_finish_unsupervised(start_devhost):
    host = start_devhost()
    options = {
        "num_agents": 2,
        "max_supervisor_calls": 1,
        "max_iterations": 3,
        "run_deep_search_first": False,
    }
    view = run_research(host, QUESTION, options)
    assert view["status"] == "completed", view
    stats = host.engine.stats
    assert stats["activity:supervisor_review"] == 1
    # four planned todos, three allowed: after the one review the agents go on unsupervised
    assert stats["activity:run_researcher"] == 3
    assert len(list((folder(host, view["session_id"]) / "agents").glob("agent_*.md"))) == 2
    assert view["progress"]["supervisor_calls"] == 1


def check_default_caps_and_next_todo_only_after_review(host, view: dict) -> None:
    caps = Settings().caps_for(None)
    stats = host.engine.stats
    assert 1 <= stats["activity:run_researcher"] <= caps.max_iterations
    assert 1 <= stats["activity:supervisor_review"] <= caps.max_supervisor_calls

    history = host.engine.get(view["instance_id"]).history
    scheduled = {e["EventId"]: e for e in history if e["EventType"] == TASK_SCHEDULED}
    runs: dict[int, list[tuple[int, str]]] = {}  # agent -> (position, item) of each todo
    reviewed_at: dict[str, int] = {}  # finding item -> position of its review
    finished: dict[str, str | None] = {}  # item -> item_ref the run returned
    for position, event in enumerate(history):
        if event["EventType"] == TASK_SCHEDULED and event["Name"] == "run_researcher":
            request = json.loads(event["Input"])
            runs.setdefault(request["profile"]["agent_id"], []).append((position, request["item"]))
        elif event["EventType"] == TASK_SCHEDULED and event["Name"] == "supervisor_review":
            reviewed_at[json.loads(event["Input"])["finding_ref"]] = position
        elif event["EventType"] == TASK_COMPLETED:
            task = scheduled[event["TaskScheduledId"]]
            if task["Name"] == "run_researcher":
                item = json.loads(task["Input"])["item"]
                result = json.loads(event["Result"])
                finished[item] = (json.loads(result) if isinstance(result, str) else result)[
                    "item_ref"
                ]
    assert len(reviewed_at) == stats["activity:supervisor_review"]
    checked = 0
    for todos in runs.values():
        for (_, item), (next_position, _) in itertools.pairwise(todos):
            ref = finished[item]
            if ref in reviewed_at:
                assert reviewed_at[ref] < next_position, "next todo given before its review"
                checked += 1
            else:  # no review left: every review happened before the next todo
                assert len([p for p in reviewed_at.values() if p < next_position]) == (
                    caps.max_supervisor_calls
                )
    assert checked >= 1  # at least one agent had a second todo, given after its review
