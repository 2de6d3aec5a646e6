"""A deep research whose orchestration is gone does not block its chat for good.

Each test builds exactly the state a failure leaves behind, then starts a new
deep research in that chat over HTTP, as a user would:
- a crash between writing the session and starting its orchestration leaves
  an "active" session document with no instance;
- an instance ended from outside (an operator's terminate) leaves a session
  that still says it waits for clarification.
A session younger than the start grace without an instance is a start still
in progress, and keeps the chat (409).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from shared.adapters.stores.sqlite import SqliteSessionStore
from shared.core.session_models import Mode, SessionRecord
from shared.usecases.reconcile import ENDED_SILENTLY, NEVER_STARTED
from tests.e2e.polling import TERMINAL, wait_for

pytestmark = pytest.mark.e2e

CLARIFY = {"enable_clarifying_questions": True, "num_agents": 1}
STILL_RUNNING = {"active", "waiting_clarification", "researching", "completed"}


def start(api: httpx.Client, chat_id: str) -> httpx.Response:
    body = {"query": "python", "mode": "deep_research", "chat_id": chat_id, "options": CLARIFY}
    return api.post("/api/research", json=body)


def leftover_session(devhost, chat_id: str, age: timedelta) -> SessionRecord:
    """The session document of a start that crashed ``age`` ago, written as start_research does."""
    store = SqliteSessionStore(devhost.settings.data_dir / "sessions.sqlite3")
    session_id = uuid.uuid4().hex
    created = datetime.now(UTC) - age
    try:
        return store.create(
            SessionRecord(
                id=session_id,
                chat_id=chat_id,
                original_query="python",
                mode=Mode.deep_research,
                instance_id=session_id,
                created_at=created,
                updated_at=created,
            )
        )
    finally:
        store.close()


def test_a_session_whose_orchestration_never_started_is_failed_and_frees_the_chat(
    api: httpx.Client, devhost
) -> None:
    orphan = leftover_session(devhost, "crashed-chat", age=timedelta(minutes=10))
    assert devhost.engine.get(orphan.instance_id) is None

    response = start(api, "crashed-chat")

    assert response.status_code == 202, response.text
    old = api.get(f"/api/research/{orphan.id}").json()
    assert old["status"] == "failed"
    assert old["error"] == NEVER_STARTED
    new = wait_for(api, response.json()["session_id"], STILL_RUNNING | TERMINAL)
    assert new["status"] in STILL_RUNNING, new.get("error")
    sessions = api.get("/api/chats/crashed-chat/sessions").json()["sessions"]
    assert sorted(s["session_id"] for s in sessions) == sorted([orphan.id, new["session_id"]])


def test_a_session_being_started_right_now_keeps_its_chat(api: httpx.Client, devhost) -> None:
    in_progress = leftover_session(devhost, "starting-chat", age=timedelta(seconds=0))

    response = start(api, "starting-chat")

    assert response.status_code == 409, response.text
    error = response.json()["error"]
    assert error["code"] == "active_session"
    assert error["details"][0]["active_session_id"] == in_progress.id
    assert api.get(f"/api/research/{in_progress.id}").json()["status"] == "active"


def test_a_session_whose_instance_was_terminated_is_failed_and_frees_the_chat(
    api: httpx.Client, devhost
) -> None:
    first = start(api, "terminated-chat")
    assert first.status_code == 202, first.text
    sid = first.json()["session_id"]
    assert wait_for(api, sid, {"waiting_clarification"} | TERMINAL)["status"] == (
        "waiting_clarification"
    )
    assert devhost.engine.terminate(sid, "an operator stopped it") == "ok"
    store = SqliteSessionStore(devhost.settings.data_dir / "sessions.sqlite3")
    try:
        assert store.get(sid).status.value == "waiting_clarification"  # nobody recorded it
    finally:
        store.close()

    second = start(api, "terminated-chat")

    assert second.status_code == 202, second.text
    old = api.get(f"/api/research/{sid}").json()
    assert old["status"] == "failed"
    assert old["error"] == ENDED_SILENTLY.format(runtime="Terminated")
    assert second.json()["session_id"] != sid
