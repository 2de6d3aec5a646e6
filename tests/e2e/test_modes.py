"""All four modes end to end over HTTP (offline reasoner, local corpus), chat history, supersede."""

from __future__ import annotations

import json
import re
import time

import httpx
import pytest

from shared.adapters.stores.sqlite import SqliteSessionStore
from tests.e2e.polling import TERMINAL, wait_for

QUESTION = "How does Python exception handling work with try and finally?"
CITATION = re.compile(r"\[(\d+)\]")


def run(api: httpx.Client, **body) -> dict:
    response = api.post("/api/research", json=body)
    assert response.status_code in (200, 202), response.text
    return wait_for(api, response.json()["session_id"], TERMINAL)


def assert_citations_resolve(text: str, sources: list[dict]) -> None:
    numbers = {s["n"] for s in sources}
    cited = {int(n) for n in CITATION.findall(text)}
    assert cited, "the answer cites its sources"
    assert cited <= numbers, f"citations {sorted(cited - numbers)} have no source"


def test_chat_mode_answers_without_sources(api: httpx.Client) -> None:
    view = run(api, query="What is a generator in Python?", mode="chat", wait_seconds=30)

    assert view["status"] == "completed"
    assert view["result"]["answer"]["answer"].strip()
    report = api.get(f"/api/research/{view['session_id']}/report", params={"format": "json"})
    assert report.json()["answer"] == view["result"]["answer"]["answer"]


@pytest.mark.parametrize("mode", ["search", "deep_search"])
def test_search_modes_answer_with_resolvable_citations(api: httpx.Client, mode: str) -> None:
    view = run(api, query=QUESTION, mode=mode, wait_seconds=60)

    assert view["status"] == "completed", view.get("error")
    answer = view["result"]["answer"]
    assert answer["sources"], "search modes list their sources"
    assert_citations_resolve(answer["answer"], answer["sources"])
    # numbered as a report is: 1..N in order of first citation, every listed source cited
    first_seen = list(dict.fromkeys(int(n) for n in CITATION.findall(answer["answer"])))
    assert first_seen == [s["n"] for s in answer["sources"]] == list(range(1, len(first_seen) + 1))
    markdown = api.get(f"/api/research/{view['session_id']}/report").text
    assert answer["sources"][0]["url"] in markdown


def test_deep_research_writes_a_full_cited_report(api: httpx.Client) -> None:
    view = run(
        api,
        query=QUESTION,
        mode="deep_research",
        options={"enable_clarifying_questions": False, "num_agents": 2},
    )

    assert view["status"] == "completed", view.get("error")
    report = api.get(f"/api/research/{view['session_id']}/report", params={"format": "json"}).json()
    assert len(report["sections"]) >= 3
    assert report["executive_summary"].strip() and report["conclusion"].strip()
    assert report["sources"]
    body = " ".join(
        [
            report["executive_summary"],
            report["conclusion"],
            *(s["content"] for s in report["sections"]),
        ]
    )
    assert_citations_resolve(body, report["sources"])
    markdown = api.get(f"/api/research/{view['session_id']}/report").text
    for section in report["sections"]:
        assert section["heading"] in markdown


def test_chat_history_carries_over_within_a_chat(api: httpx.Client, devhost) -> None:
    first = run(api, query="What is a Python decorator?", mode="chat", chat_id="history-chat")
    second = run(api, query="Can you give an example of it?", mode="chat", chat_id="history-chat")

    assert first["status"] == second["status"] == "completed"
    listed = api.get("/api/chats/history-chat/sessions").json()["sessions"]
    assert [s["session_id"] for s in listed] == [second["session_id"], first["session_id"]]
    store = SqliteSessionStore(devhost.settings.data_dir / "sessions.sqlite3")
    history = store.history("history-chat", 10)
    assert [(m.role, m.session_id) for m in history] == [
        ("user", first["session_id"]),
        ("assistant", first["session_id"]),
        ("user", second["session_id"]),
        ("assistant", second["session_id"]),
    ]
    # The second request saw the first exchange: its orchestration input carried it,
    # and "it" was understood as the decorator asked about before.
    started_with = json.loads(devhost.engine.get(second["instance_id"]).input)
    if isinstance(started_with, str):  # the Durable client sends the input JSON-encoded twice
        started_with = json.loads(started_with)
    assert [m["content"] for m in started_with["history"]] == [
        "What is a Python decorator?",
        history[1].content,
    ]
    assert "decorator" in second["result"]["answer"]["answer"].lower()


def test_a_new_request_supersedes_a_waiting_deep_research(api: httpx.Client, devhost) -> None:
    started = api.post(
        "/api/research",
        json={
            "query": "python",
            "mode": "deep_research",
            "chat_id": "supersede-chat",
            "options": {"enable_clarifying_questions": True},
        },
    )
    waiting = wait_for(api, started.json()["session_id"], {"waiting_clarification"} | TERMINAL)
    assert waiting["status"] == "waiting_clarification"

    chat = run(api, query="What is a Python list?", mode="chat", chat_id="supersede-chat")

    assert chat["status"] == "completed"
    assert api.get(f"/api/research/{waiting['session_id']}").json()["status"] == "superseded"
    deadline = time.monotonic() + 30
    while devhost.engine.get(waiting["instance_id"]).status != "Terminated":
        assert time.monotonic() < deadline, devhost.engine.get(waiting["instance_id"]).status
        time.sleep(0.2)
    reply = api.post(f"/api/research/{waiting['session_id']}/clarification", json={"text": "x"})
    assert reply.status_code == 409
    # The chat's deep research slot is free again.
    again = api.post("/api/research", json={"query": "python", "chat_id": "supersede-chat"})
    assert again.status_code == 202
