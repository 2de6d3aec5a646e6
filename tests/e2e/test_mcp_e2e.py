"""MCP clients drive research through devhost's ``/runtime/webhooks/mcp``, as they would in Azure.

Real pieces only: the official ``mcp`` client over real HTTP (streamable HTTP,
and SSE for older clients) against devhost, which runs function_app's MCP
tool functions with the MCP extension's payloads.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
from mcp import ClientSession
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError
from mcp.types import CallToolResult

from devhost.host import DevHost
from shared.core.config import Settings
from shared.core.limits import NUM_AGENTS

pytestmark = pytest.mark.e2e

TOOLS = {
    "start_research",
    "get_research_status",
    "answer_clarification",
    "cancel_research",
    "get_research_report",
    "review_plan",
    "ask_research",
}
TERMINAL = {"completed", "failed", "cancelled", "superseded"}


@asynccontextmanager
async def connect(url: str, headers: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    async with (
        httpx.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(url, http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, **arguments) -> CallToolResult:
    return await session.call_tool(tool, arguments)


async def follow(session: ClientSession, sid: str, until: set[str], timeout: float = 120) -> dict:
    """Poll ``get_research_status`` until the status is in ``until``, as an agent would."""
    deadline = time.monotonic() + timeout
    while True:
        result = await call(session, "get_research_status", session_id=sid)
        assert not result.isError, result.content
        status = result.structuredContent
        if status["status"] in until:
            return status
        assert time.monotonic() < deadline, f"still {status['status']} ({status['phase']})"
        await asyncio.sleep(0.3)


def test_an_agent_starts_follows_answers_and_reads_a_deep_research(devhost: DevHost, api) -> None:
    async def scenario() -> tuple[dict, dict, str, str]:
        async with connect(devhost.mcp_url) as session:
            listed = {t.name: t for t in (await session.list_tools()).tools}
            started = await call(
                session,
                "start_research",
                query="python",
                mode="deep_research",
                chat_id="mcp-agent",
                options={"num_agents": 2, "enable_clarifying_questions": True},
            )
            assert not started.isError, started.content
            sid = started.structuredContent["session_id"]
            asked = await follow(session, sid, {"waiting_clarification"} | TERMINAL)
            assert asked["status"] == "waiting_clarification", asked
            assert "answer_clarification" in asked["next_step"]
            answered = await call(
                session, "answer_clarification", session_id=sid, text="generators, Python 3.12"
            )
            assert not answered.isError, answered.content
            done = await follow(session, sid, TERMINAL)
            report = await call(session, "get_research_report", session_id=sid)
            assert not report.isError, report.content
            return listed, done, sid, report.content[0].text

    listed, done, sid, markdown = asyncio.run(scenario())

    assert set(listed) >= TOOLS
    schema = listed["start_research"].inputSchema
    assert schema["required"] == ["query"] and schema["properties"]["options"]["type"] == "object"
    assert listed["answer_clarification"].inputSchema["properties"]["answers"]["type"] == "array"
    assert done["status"] == "completed", done.get("error")
    assert done["clarification"]["answers"] == ["generators, Python 3.12"]
    assert done["next_step"].startswith("Read the result with get_research_report")
    assert markdown.startswith("# ") and "**Query:** python" in markdown
    over_http = api.get(f"/api/research/{sid}/report", params={"format": "md"})
    assert markdown == over_http.text  # the same use case behind both doors


def test_bad_arguments_are_tool_errors_with_the_reason_never_a_server_error(devhost: DevHost):
    async def scenario() -> dict[str, CallToolResult | McpError]:
        outcomes: dict[str, CallToolResult | McpError] = {}
        async with connect(devhost.mcp_url) as session:
            outcomes["bad mode"] = await call(session, "start_research", query="x", mode="essay")
            outcomes["too many agents"] = await call(
                session, "start_research", query="x", options={"num_agents": NUM_AGENTS.le + 1}
            )
            outcomes["options not an object"] = await call(
                session, "start_research", query="x", options="many agents"
            )
            outcomes["unknown session"] = await call(
                session, "get_research_status", session_id="f" * 32
            )
            outcomes["malformed session"] = await call(
                session, "cancel_research", session_id="../etc"
            )
            outcomes["answers and text"] = await call(
                session, "answer_clarification", session_id="f" * 32, answers=["a"], text="b"
            )
            started = await call(session, "start_research", query="What is a Python list?")
            sid = started.structuredContent["session_id"]
            outcomes["report too early"] = await call(
                session, "get_research_report", session_id=sid
            )
            outcomes["nothing to answer"] = await call(
                session, "answer_clarification", session_id=sid, text="anything"
            )
            outcomes["bad format"] = await call(
                session, "get_research_report", session_id=sid, format="pdf"
            )
            await call(session, "cancel_research", session_id=sid)
            for tool, arguments in (("start_research", {"mode": "chat"}), ("no_such_tool", {})):
                try:
                    await session.call_tool(tool, arguments)
                except McpError as exc:
                    outcomes[f"protocol {tool}"] = exc
            return outcomes

    outcomes = asyncio.run(scenario())

    def error(name: str) -> tuple[str, str]:
        result = outcomes[name]
        assert isinstance(result, CallToolResult) and result.isError, (name, result)
        body = result.structuredContent["error"]
        assert result.content[0].text.startswith(f"{body['code']}: {body['message']}")
        return body["code"], result.content[0].text

    assert error("bad mode")[0] == "validation_error" and "mode" in error("bad mode")[1]
    assert "options.num_agents" in error("too many agents")[1]
    assert "options" in error("options not an object")[1]
    assert error("unknown session")[0] == "not_found"
    assert error("malformed session")[0] == "not_found"
    assert "exactly one of 'answers' or 'text'" in error("answers and text")[1]
    code, text = error("report too early")
    assert code == "not_found" and "not ready yet" in text
    assert error("nothing to answer")[0] == "conflict"
    assert "format must be 'md' or 'json'" in error("bad format")[1]
    missing = outcomes["protocol start_research"]
    assert isinstance(missing, McpError) and "Please provide: query" in missing.error.message
    unknown = outcomes["protocol no_such_tool"]
    assert isinstance(unknown, McpError) and "Unknown tool: 'no_such_tool'" in unknown.error.message


def test_an_older_client_uses_the_sse_endpoint(devhost: DevHost) -> None:
    async def scenario() -> tuple[set[str], dict, dict]:
        async with (
            sse_client(devhost.mcp_url + "/sse") as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            names = {t.name for t in (await session.list_tools()).tools}
            started = await call(
                session, "start_research", query="What does a Python list hold?", mode="chat"
            )
            done = await follow(session, started.structuredContent["session_id"], TERMINAL)
            report = await call(
                session, "get_research_report", session_id=done["session_id"], format="json"
            )
            return names, done, report.structuredContent

    names, done, answer = asyncio.run(scenario())

    assert names >= TOOLS
    assert done["status"] == "completed", done.get("error")
    assert answer["answer"].strip()


def test_with_keys_required_only_the_mcp_system_key_or_the_master_key_opens_it(
    start_devhost, data_dir
) -> None:
    settings = Settings(data_dir=data_dir, reasoner="offline", search_provider="local")
    host = start_devhost(settings.model_copy(update={"devhost_require_keys": True}))
    keys = json.loads((data_dir / "devhost-keys.json").read_text())
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "curl", "version": "1"},
        },
    }
    accept = {"Accept": "application/json, text/event-stream"}

    def post(**headers: str) -> httpx.Response:
        return httpx.post(host.mcp_url, json=initialize, headers=accept | headers, timeout=30)

    async def listed(key: str) -> set[str]:
        async with connect(host.mcp_url, {"x-functions-key": key}) as session:
            return {t.name for t in (await session.list_tools()).tools}

    assert post().status_code == 401
    assert post(**{"x-functions-key": keys["function"]}).status_code == 401
    assert asyncio.run(listed(keys["mcp_extension"])) >= TOOLS
    assert asyncio.run(listed(keys["master"])) >= TOOLS


def test_an_agent_reviews_a_plan_through_a_tool(devhost: DevHost) -> None:
    async def scenario() -> tuple[dict, CallToolResult, CallToolResult, dict]:
        async with connect(devhost.mcp_url) as session:
            started = await call(
                session,
                "start_research",
                query="How do Python context managers work?",
                options={
                    "require_plan_approval": True,
                    "enable_clarifying_questions": False,
                    "num_agents": 2,
                },
            )
            sid = started.structuredContent["session_id"]
            waiting = await follow(session, sid, {"waiting_plan_approval"} | TERMINAL)
            unsure = await call(session, "review_plan", session_id=sid, action="maybe")
            first = waiting["plan"]["topics"][0]
            edited = await call(
                session,
                "review_plan",
                session_id=sid,
                action="edit",
                topics=[{"id": first["id"], "title": first["title"]}],
                num_agents=1,
            )
            return waiting, unsure, edited, await follow(session, sid, TERMINAL)

    waiting, unsure, edited, done = asyncio.run(scenario())

    assert waiting["status"] == "waiting_plan_approval" and "review_plan" in waiting["next_step"]
    assert unsure.isError and "action" in unsure.content[0].text
    assert not edited.isError, edited.content
    assert done["status"] == "completed", done.get("error")
    assert done["plan"]["status"] == "edited" and len(done["plan"]["topics"]) == 1
