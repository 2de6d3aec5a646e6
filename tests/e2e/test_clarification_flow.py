"""Clarifying questions over HTTP: asked, answered once, timed out, answered after other work."""

from __future__ import annotations

import httpx

from shared.adapters.stores.sqlite import SqliteSessionStore
from tests.e2e.polling import TERMINAL, wait_for

CLARIFY = {"enable_clarifying_questions": True, "num_agents": 2}


def start(api: httpx.Client, chat_id: str, **options) -> str:
    body = {
        "query": "python",
        "mode": "deep_research",
        "chat_id": chat_id,
        "options": {**CLARIFY, **options},
    }
    response = api.post("/api/research", json=body)
    assert response.status_code == 202, response.text
    return response.json()["session_id"]


def test_questions_are_asked_answered_once_and_stored(api: httpx.Client, devhost) -> None:
    sid = start(api, "clarify-chat")

    waiting = wait_for(api, sid, {"waiting_clarification"} | TERMINAL)
    assert waiting["status"] == "waiting_clarification"
    questions = waiting["clarification"]["questions"]
    assert questions and all(q.strip() for q in questions)
    answers = ["The language and its generators", "Python 3.12", "A detailed report"]

    reply = api.post(f"/api/research/{sid}/clarification", json={"answers": answers})
    again = api.post(f"/api/research/{sid}/clarification", json={"answers": ["changed my mind"]})

    assert reply.status_code == 202
    assert again.status_code == 409 and again.json()["error"]["code"] == "conflict"
    done = wait_for(api, sid, TERMINAL)
    assert done["status"] == "completed", done.get("error")
    assert done["clarification"]["answers"] == answers
    stored = SqliteSessionStore(devhost.settings.data_dir / "sessions.sqlite3").get(sid)
    assert stored.clarification_answers == answers
    assert stored.clarification_questions == questions
    report = api.get(f"/api/research/{sid}/report", params={"format": "json"}).json()
    assert not any("unanswered" in w for w in report["warnings"])


def test_unanswered_questions_time_out_and_the_report_says_so(api: httpx.Client) -> None:
    sid = start(api, "clarify-timeout", clarification_timeout_minutes=0.05)

    assert wait_for(api, sid, {"waiting_clarification"} | TERMINAL)["status"] == (
        "waiting_clarification"
    )
    done = wait_for(api, sid, TERMINAL, timeout=120)

    assert done["status"] == "completed", done.get("error")
    assert done["clarification"]["answers"] == []
    report = api.get(f"/api/research/{sid}/report", params={"format": "json"}).json()
    assert any("unanswered" in w for w in report["warnings"]), report["warnings"]
    late = api.post(f"/api/research/{sid}/clarification", json={"text": "too late"})
    assert late.status_code == 409


def test_answering_after_working_in_another_chat_resumes_the_same_session(
    api: httpx.Client,
) -> None:
    sid = start(api, "chat-a")
    assert wait_for(api, sid, {"waiting_clarification"} | TERMINAL)["status"] == (
        "waiting_clarification"
    )

    other = api.post(
        "/api/research",
        json={
            "query": "What is a Python set?",
            "mode": "chat",
            "chat_id": "chat-b",
            "wait_seconds": 30,
        },
    )
    assert other.status_code in (200, 202)
    assert wait_for(api, other.json()["session_id"], TERMINAL)["status"] == "completed"
    assert api.get(f"/api/research/{sid}").json()["status"] == "waiting_clarification"

    reply = api.post(f"/api/research/{sid}/clarification", json={"text": "generators"})

    assert reply.status_code == 202
    done = wait_for(api, sid, TERMINAL)
    assert done["status"] == "completed", done.get("error")
    assert done["session_id"] == sid and done["clarification"]["answers"] == ["generators"]
    assert [s["session_id"] for s in api.get("/api/chats/chat-a/sessions").json()["sessions"]] == [
        sid
    ]


def test_a_waiting_start_returns_as_soon_as_questions_are_asked(api: httpx.Client) -> None:
    """wait_seconds=60 must not hold the caller while the run waits for the caller itself.

    The ``api`` client gives up after 30 s, so a start that sat out the full minute fails here.
    """
    response = api.post(
        "/api/research",
        json={
            "query": "python",
            "mode": "deep_research",
            "chat_id": "clarify-wait",
            "options": CLARIFY,
            "wait_seconds": 60,
        },
    )

    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "waiting_clarification"
    assert body["clarification"]["questions"]
    assert response.headers["Location"] == body["links"]["status"]
