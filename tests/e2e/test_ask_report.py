"""Asking a finished research (issue 34, part 1), over real HTTP against devhost, offline.

Alice researches context managers; then she asks the finished session about something
its sources cover and about something they do not, and Bob tries to ask her session.
The answer's ``[n]`` must point into the session's own source list, with the URLs the
report gives those numbers; asking about something else gets the plain "not in the
sources" answer; Bob gets the 404 an unknown id gets.
"""

from __future__ import annotations

import asyncio
import re

import httpx
import pytest

from devhost.host import DevHost
from shared.core.config import Settings
from tests.e2e.polling import TERMINAL, wait_for
from tests.e2e.test_mcp_e2e import call, connect, follow
from tests.e2e.test_ownership import QUICK, assert_unknown, start

pytestmark = pytest.mark.e2e

QUESTION = "How do Python context managers release resources?"
COVERED = "What does the __exit__ method of a context manager do?"
NOT_COVERED = "What is the boiling point of mercury at sea level?"


@pytest.fixture
def host(start_devhost, data_dir) -> DevHost:
    return start_devhost(
        Settings(
            data_dir=data_dir,
            reasoner="offline",
            search_provider="local",
            auth_mode="easyauth",
            website_auth_enabled=True,
        )
    )


def test_a_finished_session_answers_from_its_own_sources_and_only_for_its_owner(
    people: dict[str, httpx.Client],
) -> None:
    alice, bob = people["alice"], people["bob"]
    session_id = start(alice, QUESTION, "ask-chat", **QUICK)
    assert wait_for(alice, session_id, TERMINAL)["status"] == "completed"
    report = alice.get(f"/api/research/{session_id}/report", params={"format": "json"}).json()
    listed = {s["n"]: s["url"] for s in report["sources"]}

    covered = alice.post(f"/api/research/{session_id}/ask", json={"question": COVERED})
    assert covered.status_code == 200, covered.text
    answer = covered.json()
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", answer["answer"])}
    assert answer["answered"] is True and answer["language"] == "en"
    assert cited and cited <= set(listed), (cited, listed)
    assert {s["n"]: s["url"] for s in answer["sources"]} == {n: listed[n] for n in cited}
    assert "exit" in answer["answer"].lower()  # quotes what the sources say of leaving the block

    missing = alice.post(f"/api/research/{session_id}/ask", json={"question": NOT_COVERED})
    assert missing.status_code == 200, missing.text
    assert missing.json()["answered"] is False
    assert missing.json()["answer"].startswith("Not in the sources")
    assert missing.json()["sources"] == []

    german = alice.post(
        f"/api/research/{session_id}/ask",
        json={"question": "Wie hoch ist der Siedepunkt von Quecksilber auf Meereshöhe?"},
    ).json()
    assert german["language"] == "de" and german["answer"].startswith("Nicht in den Quellen")

    kept = alice.get(f"/api/research/{session_id}/asks").json()["exchanges"]
    assert [e["question"] for e in kept] == [COVERED, NOT_COVERED, german["question"]]
    assert kept[0]["answer"] == answer["answer"]

    assert_unknown(
        bob.post(f"/api/research/{session_id}/ask", json={"question": COVERED}), session_id
    )
    assert_unknown(bob.get(f"/api/research/{session_id}/asks"), session_id)
    assert len(alice.get(f"/api/research/{session_id}/asks").json()["exchanges"]) == 3


def test_asking_refuses_what_it_cannot_answer_with_a_reason(
    people: dict[str, httpx.Client],
) -> None:
    alice = people["alice"]
    session_id = start(alice, QUESTION, "ask-early", **QUICK)
    early = alice.post(f"/api/research/{session_id}/ask", json={"question": COVERED})
    if early.status_code != 200:  # the offline run may already be over on a fast machine
        assert early.status_code == 409, early.text
        assert "ask once its report is ready" in early.json()["error"]["message"]
    wait_for(alice, session_id, TERMINAL)
    for body, field in (({"question": "   "}, "question"), ({"q": "x"}, "question")):
        response = alice.post(f"/api/research/{session_id}/ask", json=body)
        assert response.status_code == 422, response.text
        assert any(field in d["loc"] for d in response.json()["error"]["details"]), response.text


def test_an_agent_asks_through_the_mcp_tool_and_a_person_cannot_ask_its_session(
    host: DevHost, people: dict[str, httpx.Client]
) -> None:
    mcp_url = host.mcp_url

    async def scenario() -> tuple[str, dict]:
        async with connect(mcp_url) as session:
            started = await call(
                session, "start_research", query=QUESTION, mode="deep_research", options=QUICK
            )
            sid = started.structuredContent["session_id"]
            done = await follow(session, sid, TERMINAL)
            assert "ask_research" in done["next_step"]
            asked = await call(session, "ask_research", session_id=sid, question=COVERED)
            assert not asked.isError, asked.content
            blank = await call(session, "ask_research", session_id=sid, question=" ")
            assert blank.isError and blank.structuredContent["error"]["code"] == "validation_error"
            return sid, asked.structuredContent

    sid, answer = asyncio.run(scenario())
    assert answer["answered"] is True and answer["sources"]
    assert_unknown(
        people["alice"].post(f"/api/research/{sid}/ask", json={"question": COVERED}), sid
    )
