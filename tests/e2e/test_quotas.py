"""Quotas per person over real HTTP against devhost, signed in (issue 27 item 2).

Alice, Bob and the MCP key's holders are three owners. Sessions that wait for
clarification stay unfinished, so a burst of starts meets the concurrent
quota without any run finishing in between; a chat answered by the OpenAI
fake spends tokens, so the next start meets the daily token quota.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from devhost.host import DevHost
from shared.core.config import Settings
from tests.e2e.polling import wait_for
from tests.e2e.test_mcp_e2e import call, connect
from tests.fakes.entra import easy_auth_headers
from tests.fakes.openai_server import FakeOpenAIServer

pytestmark = pytest.mark.e2e

ALICE = easy_auth_headers("a11ce000-0000-4000-8000-000000000001")
BOB = easy_auth_headers("b0b00000-0000-4000-8000-000000000002")
WAITS = {"run_deep_search_first": False, "enable_clarifying_questions": True}
AMBIGUOUS = "exceptions"  # the offline reasoner asks clarifying questions about it
CONCURRENT = "QUOTA_CONCURRENT_SESSIONS_PER_OWNER"


def signed_in(**settings: object) -> Settings:
    defaults = {
        "reasoner": "offline",
        "search_provider": "local",
        "auth_mode": "easyauth",
        "website_auth_enabled": True,
    }
    return Settings(**(defaults | settings))


def start(api: httpx.Client, query: str = AMBIGUOUS, **body: object) -> httpx.Response:
    return api.post(
        "/api/research", json={"query": query, "mode": "deep_research", "options": WAITS, **body}
    )


def all_at_once(count: int, job) -> list[httpx.Response]:
    barrier = threading.Barrier(count)

    def run(_: int) -> httpx.Response:
        barrier.wait()
        return job()

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(run, range(count)))


def assert_quota_refusal(response: httpx.Response, quota: str, limit: float) -> dict:
    assert response.status_code == 429, response.text
    error = response.json()["error"]
    assert error["code"] == "quota_exceeded" and quota in error["message"]
    (detail,) = error["details"]
    assert detail["quota"] == quota and detail["limit"] == limit and detail["used"] >= limit
    assert int(response.headers["Retry-After"]) == detail["retry_after_seconds"] > 0
    return detail


def test_twenty_concurrent_starts_by_one_person_get_exactly_three_sessions(
    start_devhost, data_dir
) -> None:
    host: DevHost = start_devhost(
        signed_in(data_dir=data_dir, quota_concurrent_sessions_per_owner=3)
    )
    with (
        httpx.Client(base_url=host.url, headers=ALICE, timeout=60) as alice,
        httpx.Client(base_url=host.url, headers=BOB, timeout=60) as bob,
    ):
        answers = all_at_once(20, lambda: start(alice))

        accepted = [r for r in answers if r.status_code == 202]
        refused = [r for r in answers if r.status_code != 202]
        assert len(accepted) == 3, [r.text for r in refused if r.status_code != 429]
        assert len(refused) == 17
        for response in refused:
            detail = assert_quota_refusal(response, CONCURRENT, 3)
            assert detail["frees_at"] is None and "ends" in detail["frees"]
        mine = [r.json()["session_id"] for r in accepted]
        for session_id in mine:  # they hold their places by waiting for Alice
            assert wait_for(alice, session_id, {"waiting_clarification"})["status"]

        # Bob is someone else: his starts are his own count.
        assert start(bob).status_code == 202
        # Cancelling one of Alice's sessions gives its place back, for one start.
        assert alice.post(f"/api/research/{mine[0]}/cancel").status_code == 202
        assert start(alice).status_code == 202
        assert_quota_refusal(start(alice), CONCURRENT, 3)


def test_sessions_started_through_mcp_count_against_the_mcp_owner(start_devhost, data_dir) -> None:
    host = start_devhost(signed_in(data_dir=data_dir, quota_concurrent_sessions_per_owner=1))

    async def through_mcp() -> tuple[bool, dict]:
        async with connect(host.mcp_url) as session:
            first = await call(session, "start_research", query=AMBIGUOUS, options=WAITS)
            second = await call(session, "start_research", query=AMBIGUOUS, options=WAITS)
            return first.isError, second.structuredContent

    first_failed, second = asyncio.run(through_mcp())

    assert not first_failed
    assert second["error"]["code"] == "quota_exceeded"
    assert second["error"]["details"][0]["quota"] == CONCURRENT
    with httpx.Client(base_url=host.url, headers=ALICE, timeout=60) as alice:
        assert start(alice).status_code == 202  # the MCP owner's session is not Alice's


def test_once_the_days_tokens_are_spent_the_next_start_is_refused_until_midnight(
    start_devhost, data_dir, fake_openai: FakeOpenAIServer
) -> None:
    llm = {"reasoner": "llm", "openai_base_url": fake_openai.base_url, "openai_api_key": "test"}
    host = start_devhost(signed_in(data_dir=data_dir, quota_tokens_per_day_per_owner=10, **llm))
    with (
        httpx.Client(base_url=host.url, headers=ALICE, timeout=60) as alice,
        httpx.Client(base_url=host.url, headers=BOB, timeout=60) as bob,
    ):
        chat = {"mode": "chat", "wait_seconds": 30}
        first = alice.post("/api/research", json={"query": "What is a Python generator?", **chat})
        assert first.status_code == 200, first.text
        spent = first.json()["usage"]
        assert spent["prompt_tokens"] + spent["completion_tokens"] >= 10

        refused = alice.post("/api/research", json={"query": "And a coroutine?", **chat})

        detail = assert_quota_refusal(refused, "QUOTA_TOKENS_PER_DAY_PER_OWNER", 10)
        assert detail["used"] == spent["prompt_tokens"] + spent["completion_tokens"]
        assert detail["frees_at"].endswith("T00:00:00+00:00")
        assert (
            bob.post("/api/research", json={"query": "And a coroutine?", **chat}).status_code == 200
        )


def test_a_refused_start_supersedes_nothing_in_its_chat(start_devhost, data_dir) -> None:
    """A new question in a chat supersedes its running research only once it is let in."""
    host: DevHost = start_devhost(signed_in(data_dir=data_dir, quota_sessions_per_day_per_owner=1))
    with httpx.Client(base_url=host.url, headers=ALICE, timeout=60) as alice:
        first = start(alice, chat_id="c1")
        assert first.status_code == 202, first.text
        session_id = first.json()["session_id"]
        wait_for(alice, session_id, {"waiting_clarification"}, timeout=60)
        refused = alice.post(
            "/api/research", json={"query": "what is a list", "mode": "chat", "chat_id": "c1"}
        )
        assert_quota_refusal(refused, "QUOTA_SESSIONS_PER_DAY_PER_OWNER", 1)
        assert alice.get(f"/api/research/{session_id}").json()["status"] == "waiting_clarification"
