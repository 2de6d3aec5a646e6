"""The collection tools over MCP against devhost: add a document, follow its ingestion,
find the collection, research it without the web."""

from __future__ import annotations

import asyncio
import time

import pytest

from devhost.host import DevHost
from tests.e2e.test_mcp_e2e import call, connect, follow

pytestmark = pytest.mark.e2e

RUNBOOK = "# Paging runbook\n\n## Escalation\n\nPage the on-call engineer after ten minutes.\n"


def test_an_agent_adds_a_document_and_researches_it_without_the_web(devhost: DevHost) -> None:
    async def scenario() -> tuple[dict, dict, dict]:
        async with connect(devhost.mcp_url) as session:
            added = await call(
                session, "add_document", collection="ops", file_name="paging.md", text=RUNBOOK
            )
            assert not added.isError, added.content
            collection_id = added.structuredContent["collection_id"]
            deadline = time.monotonic() + 60
            while True:
                status = await call(session, "get_collection", collection_id=collection_id)
                view = status.structuredContent
                if view["progress"]["queued"] == 0:
                    break
                assert time.monotonic() < deadline, view
                await asyncio.sleep(0.2)
            listed = (await call(session, "list_collections")).structuredContent
            started = await call(
                session,
                "start_research",
                query="When is the on-call engineer paged?",
                mode="search",
                options={"collections": [collection_id], "web": False},
            )
            assert not started.isError, started.content
            done = await follow(session, started.structuredContent["session_id"], {"completed"})
            return view, listed, done

    view, listed, done = asyncio.run(scenario())
    assert [d["status"] for d in view["documents"]] == ["ingested"]
    assert [c["name"] for c in listed["collections"]] == ["python-docs", "ops"]
    assert done["status"] == "completed"


def test_an_unknown_collection_is_a_tool_error(devhost: DevHost) -> None:
    async def scenario():
        async with connect(devhost.mcp_url) as session:
            return await call(session, "get_collection", collection_id="nope")

    result = asyncio.run(scenario())
    assert result.isError
    assert result.structuredContent["error"]["message"] == "unknown collection 'nope'"


def test_adding_to_the_builtin_collections_name_is_a_tool_error(devhost: DevHost) -> None:
    async def scenario():
        async with connect(devhost.mcp_url) as session:
            return await call(
                session, "add_document", collection="python-docs", file_name="a.md", text="# A"
            )

    result = asyncio.run(scenario())
    assert result.isError
    assert "built-in, read-only collection" in result.structuredContent["error"]["message"]
