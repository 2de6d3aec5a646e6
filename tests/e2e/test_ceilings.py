"""The operator's budgets are ceilings: a request may lower them, never raise them.

Through the real HTTP stack (devhost) and the MCP endpoint: a budget above
``MAX_TOKENS_PER_SESSION`` / ``MAX_COST_PER_SESSION_USD`` is a 422 that names
the option, the value asked for, the ceiling and the setting, and nothing is
created; a budget at or under the ceiling starts; without a ceiling, any
budget within the declared bounds starts.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from devhost.host import DevHost
from shared.core.config import Settings

pytestmark = pytest.mark.e2e

TOKENS, COST = 20_000, 0.5
QUIET = {"enable_clarifying_questions": False, "run_deep_search_first": False}


@pytest.fixture
def capped(start_devhost, data_dir) -> DevHost:
    return start_devhost(
        Settings(
            data_dir=data_dir,
            reasoner="offline",
            search_provider="local",
            max_tokens_per_session=TOKENS,
            max_cost_per_session_usd=COST,
        )
    )


def _sessions(http: httpx.Client, chat: str) -> list:
    return http.get(f"/api/chats/{chat}/sessions").json()["sessions"]


@pytest.mark.parametrize(
    ("option", "asked", "ceiling", "setting"),
    [
        ("max_tokens", 1_000_000_000, TOKENS, "MAX_TOKENS_PER_SESSION"),
        ("max_cost_usd", 1e9, COST, "MAX_COST_PER_SESSION_USD"),
    ],
)
def test_a_budget_above_the_ceiling_is_refused_naming_it(capped, option, asked, ceiling, setting):
    chat = f"over-{option.replace('_', '-')}"
    with httpx.Client(base_url=capped.url, timeout=30) as http:
        body = {"query": "python generators", "chat_id": chat, "options": {option: asked}}
        response = http.post("/api/research", json=body)

        assert response.status_code == 422, response.text
        error = response.json()["error"]
        assert error["code"] == "validation_error"
        assert setting in error["message"] and f"options.{option}" in error["message"]
        [detail] = error["details"]
        assert detail["loc"] == ["options", option]
        assert (detail["requested"], detail["ceiling"], detail["setting"]) == (
            asked,
            ceiling,
            setting,
        )
        assert _sessions(http, chat) == []  # refused before anything was stored


def test_a_budget_at_or_under_the_ceiling_starts(capped):
    with httpx.Client(base_url=capped.url, timeout=30) as http:
        for chat, options in (
            ("under", {"max_tokens": TOKENS // 2, "max_cost_usd": COST / 2}),
            ("at", {"max_tokens": TOKENS, "max_cost_usd": COST}),
            ("server-budget", {}),
        ):
            body = {"query": "python generators", "chat_id": chat, "options": QUIET | options}
            response = http.post("/api/research", json=body)
            assert response.status_code == 202, response.text
            http.post(f"/api/research/{response.json()['session_id']}/cancel")


def test_without_a_ceiling_a_request_sets_any_budget(api: httpx.Client):
    options = QUIET | {"max_tokens": 1_000_000_000, "max_cost_usd": 1e9}
    response = api.post("/api/research", json={"query": "python generators", "options": options})
    assert response.status_code == 202, response.text
    api.post(f"/api/research/{response.json()['session_id']}/cancel")


def test_the_mcp_start_tool_refuses_a_budget_above_the_ceiling(capped):
    async def start(max_tokens: int) -> object:
        async with (
            httpx.AsyncClient(timeout=30) as http,
            streamable_http_client(capped.mcp_url, http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            arguments = {"query": "python generators", "chat_id": "mcp-over"}
            arguments["options"] = QUIET | {"max_tokens": max_tokens}
            return await session.call_tool("start_research", arguments)

    refused = asyncio.run(start(TOKENS + 1))
    started = asyncio.run(start(TOKENS))

    assert refused.isError
    error = refused.structuredContent["error"]
    assert error["code"] == "validation_error"
    [detail] = error["details"]
    assert (detail["requested"], detail["ceiling"]) == (TOKENS + 1, TOKENS)
    assert "MAX_TOKENS_PER_SESSION" in refused.content[0].text
    # the refusal left no session behind: the chat is free for a deep research at the ceiling
    assert not started.isError, started.content
