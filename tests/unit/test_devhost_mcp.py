"""devhost reads MCP tool bindings and results the way the Functions MCP extension does."""

from __future__ import annotations

import asyncio
import json

import azure.durable_functions as df
import azure.functions as func
from mcp.types import CallToolResult, TextContent

from devhost.mcp import input_schema, tool_result
from devhost.registry import McpTool, index


def _tool(properties: list[dict], use_result_schema: bool = True) -> McpTool:
    return McpTool("f", "t", "", tuple(properties), use_result_schema, print, "context", None)


def test_the_input_schema_is_the_extensions_property_based_schema() -> None:
    schema = input_schema(
        _tool(
            [
                {"propertyName": "q", "propertyType": "string", "isRequired": True},
                {"propertyName": "tags", "propertyType": "string", "isArray": True},
                {"propertyName": "mode", "propertyType": "string", "enumValues": ["a", "b"]},
            ]
        )
    )

    assert schema == {
        "type": "object",
        "properties": {
            "q": {"type": "string", "description": ""},
            "tags": {"type": "array", "items": {"type": "string"}, "description": ""},
            "mode": {"type": "string", "enum": ["a", "b"], "description": ""},
        },
        "required": ["q"],
    }


def test_results_are_read_as_the_extension_reads_them() -> None:
    plain = tool_result("hello", use_result_schema=False)
    single = tool_result(
        json.dumps(
            {
                "type": "text",
                "content": json.dumps({"type": "text", "text": "{}"}),
                "structuredContent": "{}",
            }
        ),
        use_result_schema=True,
    )

    assert plain.content[0].text == "hello" and not plain.isError
    assert single.content[0].text == "{}" and single.structuredContent == {}


def test_an_error_result_from_the_sdks_mcp_tool_wrapper_keeps_is_error() -> None:
    """Guards the pinned ``mcp`` 1.x: with 2.x's field names the wrapper drops ``isError``."""
    bp = df.Blueprint()

    @bp.mcp_tool(use_result_schema=True)
    async def broken_tool() -> CallToolResult:
        text = TextContent(type="text", text="conflict: no")
        return CallToolResult(content=[text], structuredContent={"e": 1}, isError=True)

    app = df.DFApp(http_auth_level=func.AuthLevel.FUNCTION)
    app.register_functions(bp)
    tool = next(iter(index(app).mcp_tools.values()))
    returned = asyncio.run(tool.func(context=json.dumps({"name": "broken_tool", "arguments": {}})))

    result = tool_result(returned, tool.use_result_schema)

    assert result.isError and result.structuredContent == {"e": 1}
    assert result.content[0].text == "conflict: no"
