"""A report that will never exist says why; one that is coming says "not yet" (devhost, offline)."""

from __future__ import annotations

import httpx
import pytest

from tests.e2e.polling import TERMINAL, wait_for

pytestmark = pytest.mark.e2e
REPORT_PATHS = ("report?format=md", "report?format=json", "report.pdf")


def _waiting_deep_research(api: httpx.Client) -> str:
    """A short ambiguous query stops at the clarifying questions and stays there."""
    body = {
        "query": "python",
        "mode": "deep_research",
        "options": {"enable_clarifying_questions": True, "num_agents": 1},
    }
    started = api.post("/api/research", json=body)
    assert started.status_code == 202, started.text
    sid = started.json()["session_id"]
    assert wait_for(api, sid, {"waiting_clarification"} | TERMINAL)["status"] == (
        "waiting_clarification"
    )
    return sid


def _error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code, error
    return error["message"]


def test_a_running_session_says_not_yet_and_names_its_status(api: httpx.Client) -> None:
    sid = _waiting_deep_research(api)

    for path in REPORT_PATHS:
        message = _error(api.get(f"/api/research/{sid}/{path}"), 404, "not_found")
        assert "not ready yet" in message and "waiting_clarification" in message, path


def test_a_cancelled_session_says_it_was_cancelled_and_has_no_report(api: httpx.Client) -> None:
    sid = _waiting_deep_research(api)
    assert api.post(f"/api/research/{sid}/cancel").status_code == 202
    assert wait_for(api, sid, TERMINAL)["status"] == "cancelled"

    for path in REPORT_PATHS:
        message = _error(api.get(f"/api/research/{sid}/{path}"), 409, "conflict")
        assert sid in message and "cancelled" in message, path
        assert "yet" not in message, path


def test_a_superseded_session_says_so(api: httpx.Client) -> None:
    sid = _waiting_deep_research(api)
    chat_id = api.get(f"/api/research/{sid}").json()["chat_id"]
    chat = {"query": "What is a Python list?", "mode": "chat", "chat_id": chat_id}
    assert api.post("/api/research", json=chat).status_code in (200, 202)
    assert wait_for(api, sid, TERMINAL)["status"] == "superseded"

    message = _error(api.get(f"/api/research/{sid}/report"), 409, "conflict")
    assert "superseded" in message


def test_a_finished_chat_serves_its_answer_but_says_it_has_no_pdf(api: httpx.Client) -> None:
    body = {"query": "What is a Python tuple?", "mode": "chat", "wait_seconds": 30}
    sid = api.post("/api/research", json=body).json()["session_id"]
    assert wait_for(api, sid, TERMINAL)["status"] == "completed"

    assert api.get(f"/api/research/{sid}/report").status_code == 200
    message = _error(api.get(f"/api/research/{sid}/report.pdf"), 409, "conflict")
    assert "completed" in message and "PDF" in message
