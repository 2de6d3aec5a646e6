"""Who may see what, over real HTTP against devhost in ``AUTH_MODE=easyauth`` (issue 20).

Alice, Bob and an admin are signed in the way App Service Authentication
passes callers to the app: forged ``X-MS-CLIENT-PRINCIPAL`` headers (in Azure
the platform strips client copies, which is why ``easyauth`` is only for
behind Easy Auth). Every route that names a session is tried by its owner and
by someone else; someone else always gets the 404 an unused id gets.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator

import httpx
import pytest

from devhost.host import DevHost
from shared.core.config import Settings
from tests.e2e.polling import TERMINAL, wait_for
from tests.e2e.test_mcp_e2e import call, connect
from tests.e2e.web_host import ADMIN_ROLE, PEOPLE
from tests.fakes.entra import encode_principal

pytestmark = pytest.mark.e2e

QUICK = {"run_deep_search_first": False, "enable_clarifying_questions": False, "num_agents": 2}
QUESTIONS = {
    "alice": "How do Python context managers release resources?",
    "bob": "How do Python generators suspend and resume?",
}
READS = ["", "/report?format=md", "/report?format=json", "/report.pdf", "/events"]
ACTS = [("POST", "/clarification", {"text": "Python 3.12"}), ("POST", "/cancel", None)]


@pytest.fixture
def host(start_devhost, data_dir) -> DevHost:
    return start_devhost(
        Settings(
            data_dir=data_dir,
            reasoner="offline",
            search_provider="local",
            auth_mode="easyauth",
            website_auth_enabled=True,  # as App Service sets it with Easy Auth on
            auth_admin_role=ADMIN_ROLE,
        )
    )


@pytest.fixture
def people(host: DevHost) -> Iterator[dict[str, httpx.Client]]:
    clients = {
        name: httpx.Client(base_url=host.url, headers=headers, timeout=60)
        for name, headers in PEOPLE.items()
    }
    clients["nobody"] = httpx.Client(base_url=host.url, timeout=60)
    yield clients
    for client in clients.values():
        client.close()


def start(client: httpx.Client, query: str, chat_id: str, **options: object) -> str:
    body = {"query": query, "mode": "deep_research", "chat_id": chat_id, "options": options}
    response = client.post("/api/research", json=body)
    assert response.status_code == 202, response.text
    return response.json()["session_id"]


def assert_unknown(response: httpx.Response, session_id: str) -> None:
    """Exactly what an id nobody ever used gets: nothing says the session exists."""
    assert response.status_code == 404, response.text
    assert response.json() == {
        "error": {"code": "not_found", "message": f"unknown session {session_id!r}", "details": []}
    }


def test_two_people_with_one_chat_id_each_see_only_their_own_sessions(
    people: dict[str, httpx.Client], caplog: pytest.LogCaptureFixture
) -> None:
    alice, bob, admin = people["alice"], people["bob"], people["admin"]
    # The same chat id, both running at once: two chats, so no 409 for Bob.
    own = {name: start(people[name], QUESTIONS[name], "team-42", **QUICK) for name in QUESTIONS}
    for name, session_id in own.items():
        assert wait_for(people[name], session_id, TERMINAL)["status"] == "completed"

    for name, other in (("alice", "bob"), ("bob", "alice")):
        me, theirs = people[name], own[other]
        listed = me.get("/api/chats/team-42/sessions").json()
        assert listed["chat_id"] == "team-42"
        assert [(s["session_id"], s["chat_id"]) for s in listed["sessions"]] == [
            (own[name], "team-42")
        ]
        for path in READS:
            assert me.get(f"/api/research/{own[name]}{path}").status_code == 200, path
            assert_unknown(me.get(f"/api/research/{theirs}{path}"), theirs)
        for method, path, body in ACTS:
            assert_unknown(me.request(method, f"/api/research/{theirs}{path}", json=body), theirs)
        assert_unknown(me.delete(f"/api/research/{theirs}"), theirs)
    assert_unknown(bob.get("/api/research/0123456789abcdef"), "0123456789abcdef")

    # What the owner sees is untouched by the other's attempts.
    view = alice.get(f"/api/research/{own['alice']}").json()
    assert view["status"] == "completed" and view["query"] == QUESTIONS["alice"]
    pdf = alice.get(f"/api/research/{own['alice']}/report.pdf")
    assert pdf.content.startswith(b"%PDF")
    events = alice.get(f"/api/research/{own['alice']}/events")
    assert events.headers["content-type"].startswith("text/event-stream")
    assert "event: completed" in events.text and QUESTIONS["bob"] not in events.text

    # The admin role reads everyone's sessions (logged, ids only) but acts on none.
    with caplog.at_level(logging.INFO):
        for path in READS:
            assert admin.get(f"/api/research/{own['alice']}{path}").status_code == 200, path
    audit = [r for r in caplog.records if r.name == "deepresearch.audit"]
    assert len(audit) == len(READS)
    assert all(own["alice"] in r.getMessage() for r in audit)
    assert QUESTIONS["alice"] not in caplog.text
    for method, path, body in ACTS:
        response = admin.request(method, f"/api/research/{own['alice']}{path}", json=body)
        assert_unknown(response, own["alice"])
    assert_unknown(admin.delete(f"/api/research/{own['alice']}"), own["alice"])
    assert admin.get("/api/chats/team-42/sessions").json()["sessions"] == []


def test_only_the_owner_answers_or_cancels_a_session_that_waits(
    people: dict[str, httpx.Client],
) -> None:
    alice, bob, admin = people["alice"], people["bob"], people["admin"]
    session_id = start(alice, "python", "ask-me", enable_clarifying_questions=True, num_agents=2)
    assert wait_for(alice, session_id, {"waiting_clarification"} | TERMINAL)["status"] == (
        "waiting_clarification"
    )

    for intruder in (bob, admin):
        for method, path, body in ACTS:
            response = intruder.request(method, f"/api/research/{session_id}{path}", json=body)
            assert_unknown(response, session_id)
    assert_unknown(bob.get(f"/api/research/{session_id}/events"), session_id)
    assert admin.get(f"/api/research/{session_id}/events").status_code == 200

    assert alice.get(f"/api/research/{session_id}").json()["status"] == "waiting_clarification"
    answer = alice.post(f"/api/research/{session_id}/clarification", json={"text": "Python 3.12"})
    assert answer.status_code == 202, answer.text
    assert alice.post(f"/api/research/{session_id}/cancel").status_code in (202, 409)
    assert wait_for(alice, session_id, TERMINAL)["status"] in {"cancelled", "completed"}


MALFORMED = {
    "no principal": {},
    "not base64": {"X-MS-CLIENT-PRINCIPAL": "%%% not base64 %%%"},
    "not an object": {"X-MS-CLIENT-PRINCIPAL": encode_principal(["aad"])},
    "no ids": {"X-MS-CLIENT-PRINCIPAL": encode_principal({"auth_typ": "aad", "claims": []})},
}


def test_without_a_valid_principal_every_route_but_health_is_401_json(
    host: DevHost, people: dict[str, httpx.Client]
) -> None:
    session_id = start(people["alice"], QUESTIONS["alice"], "mine", **QUICK)
    session_routes = [("GET", path) for path in READS] + [
        ("POST", "/clarification"),
        ("POST", "/cancel"),
        ("DELETE", ""),
    ]
    requests = [("POST", "/api/research"), ("GET", "/api/chats/mine/sessions")] + [
        (method, f"/api/research/{session_id}{path}") for method, path in session_routes
    ]
    with httpx.Client(base_url=host.url, timeout=60) as client:
        for case, headers in MALFORMED.items():
            for method, url in requests:
                body = {"query": "x"} if method == "POST" else None
                response = client.request(method, url, headers=headers, json=body)
                assert response.status_code == 401, (case, method, url, response.text)
                assert response.headers["content-type"].startswith("application/json")
                assert response.headers["www-authenticate"] == "Bearer"
                error = response.json()["error"]
                assert error["code"] == "unauthorized" and error["message"], (case, url)
        assert client.get("/api/health").status_code == 200
        assert client.get("/api/openapi.json").status_code == 200
    # Nothing was started or changed by the refused calls.
    assert wait_for(people["alice"], session_id, TERMINAL)["status"] == "completed"
    assert people["alice"].get("/api/chats/mine/sessions").json()["sessions"][0]["session_id"] == (
        session_id
    )


def test_mcp_tools_see_only_the_sessions_started_through_mcp(host: DevHost, people) -> None:
    """The MCP extension passes no identity: with sign-in on, its key's holders are an
    owner of their own, and a person's session is as unknown to them as to anyone."""

    alices = start(people["alice"], QUESTIONS["alice"], "team-42", **QUICK)

    async def scenario() -> tuple[dict, dict]:
        async with connect(host.mcp_url) as session:
            peek = await call(session, "get_research_status", session_id=alices)
            started = await call(session, "start_research", query=QUESTIONS["bob"], options=QUICK)
            return peek.structuredContent, started.structuredContent

    peek, started = asyncio.run(scenario())
    assert peek["error"]["code"] == "not_found", peek
    assert_unknown(
        people["alice"].get(f"/api/research/{started['session_id']}"), started["session_id"]
    )
