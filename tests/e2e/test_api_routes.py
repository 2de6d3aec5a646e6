"""Every route of the HTTP API over real HTTP against devhost (offline reasoner, local corpus)."""

from __future__ import annotations

import time

import httpx

from tests.e2e.polling import TERMINAL, wait_for

# The local corpus index takes seconds to build; share its disk cache between tests
# (the same folder tests/conftest.py names; entries are keyed by the corpus hash).
AMBIGUOUS = "python"
QUESTION = "How does Python exception handling work with try and finally?"


def start_waiting(api: httpx.Client, chat_id: str | None = None) -> dict:
    """A deep research that stops at the clarifying questions (a short ambiguous query)."""
    body = {
        "query": AMBIGUOUS,
        "mode": "deep_research",
        "options": {"enable_clarifying_questions": True, "num_agents": 2},
    }
    if chat_id:
        body["chat_id"] = chat_id
    response = api.post("/api/research", json=body)
    assert response.status_code == 202, response.text
    return wait_for(api, response.json()["session_id"], {"waiting_clarification"} | TERMINAL)


def test_start_answers_202_with_links_location_and_retry_after(api: httpx.Client) -> None:
    response = api.post("/api/research", json={"query": AMBIGUOUS, "chat_id": "routes-start"})

    assert response.status_code == 202
    body = response.json()
    assert body["session_id"] and body["instance_id"]
    assert body["status"] in {"active", "researching", "waiting_clarification"}
    sid = body["session_id"]
    assert body["links"]["status"].endswith(f"/api/research/{sid}")
    for name, suffix in (
        ("clarification", "/clarification"),
        ("cancel", "/cancel"),
        ("report", "/report"),
        ("pdf", "/report.pdf"),
    ):
        assert body["links"][name] == body["links"]["status"] + suffix
    assert response.headers["Location"] == body["links"]["status"]
    assert int(response.headers["Retry-After"]) > 0
    # The Location header is usable as is.
    assert api.get(response.headers["Location"]).json()["session_id"] == sid


def test_chat_with_wait_seconds_answers_200_with_the_result(api: httpx.Client) -> None:
    response = api.post(
        "/api/research",
        json={
            "query": "What does the yield statement do in Python?",
            "mode": "chat",
            "wait_seconds": 30,
        },
    )

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "completed"
    assert body["result"]["answer"]["answer"].strip()
    assert "Location" not in response.headers


def test_status_shows_progress_questions_and_then_the_result(api: httpx.Client) -> None:
    waiting = start_waiting(api, "routes-status")
    assert waiting["status"] == "waiting_clarification"
    for key in (
        "session_id",
        "chat_id",
        "mode",
        "status",
        "phase",
        "progress",
        "usage",
        "created_at",
        "updated_at",
    ):
        assert key in waiting, key
    assert waiting["chat_id"] == "routes-status" and waiting["mode"] == "deep_research"
    assert set(waiting["progress"]) >= {"agents", "findings", "source_count", "supervisor_calls"}
    assert len(waiting["clarification"]["questions"]) >= 1
    assert "result" not in waiting

    sid = waiting["session_id"]
    reply = api.post(f"/api/research/{sid}/clarification", json={"answers": ["the language"]})
    assert reply.status_code == 202
    done = wait_for(api, sid, TERMINAL)

    assert done["status"] == "completed"
    assert done["result"]["report"]["sections"] >= 3
    assert done["progress"]["agents"], "the finished run lists its agents"
    for agent in done["progress"]["agents"]:
        assert set(agent) >= {"id", "profile", "todo", "done"}
    assert done["progress"]["findings"] >= 1 and done["progress"]["source_count"] >= 1
    # the former names, deprecated, still carry the same numbers
    assert done["progress"]["sources"] == done["progress"]["source_count"]
    assert done["result"]["report"]["sources"] == done["result"]["report"]["source_count"]
    assert done["updated_at"] >= done["created_at"]


def test_clarification_accepts_free_text_and_refuses_when_not_waiting(api: httpx.Client) -> None:
    sid = start_waiting(api, "routes-text")["session_id"]

    first = api.post(f"/api/research/{sid}/clarification", json={"text": "generators, please"})
    second = api.post(f"/api/research/{sid}/clarification", json={"text": "and decorators"})

    assert first.status_code == 202
    assert second.status_code == 409
    assert second.json()["error"]["code"] == "conflict"
    assert wait_for(api, sid, TERMINAL)["clarification"]["answers"] == ["generators, please"]


def test_cancel_stops_the_run_and_terminates_the_instance(api: httpx.Client, devhost) -> None:
    waiting = start_waiting(api, "routes-cancel")
    sid, instance_id = waiting["session_id"], waiting["instance_id"]

    response = api.post(f"/api/research/{sid}/cancel")

    assert response.status_code == 202
    assert response.json()["status"] == "cancelled"
    assert api.get(f"/api/research/{sid}").json()["status"] == "cancelled"
    deadline = time.monotonic() + 30
    while devhost.engine.get(instance_id).status != "Terminated":
        assert time.monotonic() < deadline, devhost.engine.get(instance_id).status
        time.sleep(0.2)
    again = api.post(f"/api/research/{sid}/cancel")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "conflict"
    late = api.post(f"/api/research/{sid}/clarification", json={"text": "too late"})
    assert late.status_code == 409


def test_reports_are_404_until_written_then_served_in_each_format(api: httpx.Client) -> None:
    sid = start_waiting(api, "routes-report")["session_id"]
    for path in ("report?format=md", "report?format=json", "report.pdf"):
        early = api.get(f"/api/research/{sid}/{path}")
        assert early.status_code == 404, path
        assert early.json()["error"]["code"] == "not_found"

    api.post(f"/api/research/{sid}/clarification", json={"answers": ["the language"]})
    assert wait_for(api, sid, TERMINAL)["status"] == "completed"

    md = api.get(f"/api/research/{sid}/report", params={"format": "md"})
    assert md.status_code == 200 and md.headers["content-type"].startswith("text/markdown")
    assert md.text.lstrip().startswith("#")
    default = api.get(f"/api/research/{sid}/report")
    assert default.status_code == 200 and default.text == md.text
    as_json = api.get(f"/api/research/{sid}/report", params={"format": "json"})
    assert as_json.headers["content-type"].startswith("application/json")
    assert len(as_json.json()["sections"]) >= 3
    pdf = api.get(f"/api/research/{sid}/report.pdf")
    assert pdf.status_code == 200
    assert pdf.headers["content-type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF")
    assert f'filename="research-{sid}.pdf"' in pdf.headers["content-disposition"]


def test_chat_sessions_are_listed_newest_first(api: httpx.Client) -> None:
    ids = []
    for query in ("What is a Python list?", "What is a Python tuple?"):
        body = {"query": query, "mode": "chat", "chat_id": "routes-list", "wait_seconds": 30}
        response = api.post("/api/research", json=body)
        assert response.status_code in (200, 202)
        ids.append(response.json()["session_id"])
        wait_for(api, ids[-1], TERMINAL)

    listed = api.get("/api/chats/routes-list/sessions")

    assert listed.status_code == 200
    assert listed.json()["chat_id"] == "routes-list"
    assert [s["session_id"] for s in listed.json()["sessions"]] == ids[::-1]
    assert api.get("/api/chats/nobody-here/sessions").json()["sessions"] == []


def test_health_names_the_embedded_adapters(api: httpx.Client) -> None:
    response = api.get("/api/health")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["reasoner"] == "offline"
    assert body["search_providers"] == ["local"]
    assert body["stores"]["sessions"] == {"kind": "sqlite", "ok": True}
    assert body["stores"]["memory"] == {"kind": "filesystem", "ok": True}
