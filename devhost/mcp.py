"""devhost's MCP endpoint: the app's MCP tool functions, served as the Functions MCP extension does.

Paths, as in Azure: ``/runtime/webhooks/mcp`` (streamable HTTP) and, for older
clients, ``/runtime/webhooks/mcp/sse`` with its ``/runtime/webhooks/mcp/message``
POST endpoint. The protocol side is the official ``mcp`` SDK (its low-level
``Server``, ``StreamableHTTPSessionManager`` and ``SseServerTransport``); devhost
only does what the extension does around it (``Azure/azure-functions-mcp-extension``):

- ``tools/list``: each ``mcpToolTrigger`` binding's ``toolName``, ``description``
  and an input schema built from ``toolProperties`` like the extension's
  ``PropertyBasedToolInputSchema`` (``type``, ``items`` for arrays, ``enum``,
  ``description``; ``required`` always present);
- ``tools/call``: an unknown tool or a missing required property is a JSON-RPC
  ``InvalidParams`` error with the extension's message; otherwise the function
  is invoked with the extension's trigger payload (``ToolInvocationContext``:
  ``name``, ``arguments``, ``sessionid``, ``clientinfo``, ``transport`` with the
  request headers) through the SDK's own converter, plus the durable client
  binding when it has one, and its return value is read back as the extension
  reads it (``useResultSchema``: an ``McpToolResult`` JSON; otherwise text);
- a function that raises: an ``isError`` result that names only the tool, as
  the extension does (the app's tools report their errors themselves).

Keys: with ``DEVHOST_REQUIRE_KEYS=true`` the endpoint takes the
``mcp_extension`` system key or the master key (``devhost/http.py`` checks).
DNS rebinding protection is on, as the SDK sets it for a loopback server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any

import mcp.types as types
from aiohttp import web
from azure.functions import meta
from mcp.server.lowlevel import Server
from mcp.server.sse import SseServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import McpError
from pydantic import TypeAdapter

from devhost.asgi import serve_asgi
from devhost.bindings import call_function
from devhost.host_config import McpServerInfo
from devhost.registry import McpTool

log = logging.getLogger("devhost.mcp")

MCP_PREFIX = "/runtime/webhooks/mcp"
SSE_PATH = f"{MCP_PREFIX}/sse"
MESSAGE_PATH = f"{MCP_PREFIX}/message"
SESSION_HEADER = "mcp-session-id"
LOOPBACK = TransportSecuritySettings(
    enable_dns_rebinding_protection=True,
    allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
    allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
)
_content_blocks = TypeAdapter(list[types.ContentBlock])
_content_block = TypeAdapter(types.ContentBlock)


class McpFront:
    """The MCP server of one devhost; ``start``/``stop`` run on the host's event loop."""

    def __init__(
        self,
        tools: dict[str, McpTool],
        info: McpServerInfo,
        client_binding: Callable[[], str],
        max_body_bytes: int,
    ) -> None:
        self.tools = tools
        self.max_body_bytes = max_body_bytes
        self._client_binding = client_binding
        self.server: Server = Server(
            info.name, version=info.version, instructions=info.instructions
        )
        self.server.list_tools()(self._list_tools)
        self.server.request_handlers[types.CallToolRequest] = self._call_tool
        self._streamable = StreamableHTTPSessionManager(self.server, security_settings=LOOPBACK)
        self._sse = SseServerTransport(MESSAGE_PATH, security_settings=LOOPBACK)
        self._stopping = asyncio.Event()
        self._manager: asyncio.Task | None = None
        self._requests: set[asyncio.Task] = set()

    # -- lifecycle (aiohttp on_startup / on_shutdown) ----------------------------------

    async def start(self, _app: web.Application | None = None) -> None:
        """Run the SDK's session manager in a task of its own (its task group lives there)."""
        ready = asyncio.Event()

        async def run() -> None:
            async with self._streamable.run():
                ready.set()
                await self._stopping.wait()

        self._manager = asyncio.create_task(run(), name="devhost-mcp")
        await ready.wait()

    async def stop(self, _app: web.Application | None = None) -> None:
        """End open streams and sessions, so a stopping host does not wait on clients."""
        for task in list(self._requests):
            task.cancel()
        self._stopping.set()
        if self._manager is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._manager

    # -- HTTP ---------------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path.rstrip("/").lower()
        if path == MCP_PREFIX:
            app = self._streamable.handle_request
        elif path == SSE_PATH and request.method == "GET":
            app = self._serve_sse
        elif path == MESSAGE_PATH and request.method == "POST":
            app = self._sse.handle_post_message
        else:
            raise web.HTTPNotFound()
        task = asyncio.current_task()
        if task is not None:
            self._requests.add(task)
        try:
            return await serve_asgi(app, request, self.max_body_bytes)
        finally:
            self._requests.discard(task)

    async def _serve_sse(self, scope, receive, send) -> None:
        try:
            async with self._sse.connect_sse(scope, receive, send) as (read, write):
                options = self.server.create_initialization_options()
                await self.server.run(read, write, options)
        except ValueError:  # refused (Host/Origin); the transport has answered already
            return

    # -- MCP ----------------------------------------------------------------------------

    async def _list_tools(self) -> list[types.Tool]:
        return [
            types.Tool(name=t.tool_name, description=t.description, inputSchema=input_schema(t))
            for t in self.tools.values()
        ]

    async def _call_tool(self, req: types.CallToolRequest) -> types.ServerResult:
        name, arguments = req.params.name, req.params.arguments or {}
        tool = self.tools.get(name)
        if tool is None:
            raise _invalid_params(f"Unknown tool: '{name}'")
        missing = [
            p["propertyName"]
            for p in tool.properties
            if p.get("isRequired") and arguments.get(p["propertyName"]) is None
        ]
        if missing:
            message = (
                "One or more required tool properties are missing values. "
                f"Please provide: {', '.join(missing)}"
            )
            raise _invalid_params(message)
        converter = meta.get_binding_registry().get("mcpToolTrigger")
        context = json.dumps(self._invocation_context(name, arguments))
        trigger = converter.decode(meta.Datum(context, "string"), trigger_metadata=None)
        kwargs: dict[str, Any] = {tool.trigger_param: trigger}
        if tool.client_param:
            kwargs[tool.client_param] = self._client_binding()
        try:
            returned = await call_function(tool.func, kwargs)
            value = converter.encode(returned, expected_type=None).value
            return types.ServerResult(tool_result(value, tool.use_result_schema))
        except Exception:
            log.exception("MCP tool %s (function %s) failed", name, tool.name)
            text = f"An error occurred invoking '{name}'."
            content: list[types.ContentBlock] = [types.TextContent(type="text", text=text)]
            return types.ServerResult(types.CallToolResult(content=content, isError=True))

    def _invocation_context(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The extension's ``ToolInvocationContext`` for this call, as JSON-ready data."""
        ctx = self.server.request_context
        request = ctx.request
        headers = dict(request.headers) if request is not None else {}
        sse = request is not None and request.url.path.rstrip("/").lower() == MESSAGE_PATH
        session_id = (
            request.query_params.get("session_id") if sse and request is not None else None
        ) or headers.get(SESSION_HEADER)
        client = ctx.session.client_params
        transport: dict[str, Any] = {
            "name": "http-sse" if sse else "http-streamable",
            "properties": {"headers": headers},
        }
        if session_id:
            transport["sessionId"] = session_id
        context: dict[str, Any] = {"name": name, "arguments": arguments, "transport": transport}
        if session_id:
            context["sessionid"] = session_id
        if client is not None:
            context["clientinfo"] = client.clientInfo.model_dump(mode="json", exclude_none=True)
        return context


def _invalid_params(message: str) -> McpError:
    return McpError(types.ErrorData(code=types.INVALID_PARAMS, message=message))


def input_schema(tool: McpTool) -> dict[str, Any]:
    """The extension's input schema for ``toolProperties`` (``PropertyBasedToolInputSchema``)."""
    properties: dict[str, Any] = {}
    for prop in tool.properties:
        kind: dict[str, Any] = {"type": prop.get("propertyType") or "string"}
        if prop.get("enumValues"):
            kind["enum"] = list(prop["enumValues"])
        entry = {"type": "array", "items": kind} if prop.get("isArray") else dict(kind)
        entry["description"] = prop.get("description") or ""
        properties[prop["propertyName"]] = entry
    required = [p["propertyName"] for p in tool.properties if p.get("isRequired")]
    return {"type": "object", "properties": properties, "required": list(dict.fromkeys(required))}


def tool_result(value: Any, use_result_schema: bool) -> types.CallToolResult:
    """A function's returned value as the extension reads it (``ToolReturnValueBinder``).

    Without ``useResultSchema`` the value is the text of one text block. With it,
    the value is an ``McpToolResult`` JSON: ``type`` ``call_tool_result`` carries a
    whole CallToolResult, ``multi_content_result`` a list of blocks, any other type
    one block, with ``structuredContent`` beside it.
    """
    if value in (None, ""):
        return types.CallToolResult(content=[])
    if not use_result_schema:
        return types.CallToolResult(content=[types.TextContent(type="text", text=str(value))])
    result = json.loads(value)
    kind, content = result.get("type"), result.get("content")
    if kind == "call_tool_result":
        return types.CallToolResult.model_validate_json(content)
    if kind == "multi_content_result":
        blocks = _content_blocks.validate_json(content)
    else:
        blocks = [_content_block.validate_json(content)]
    structured = result.get("structuredContent")
    return types.CallToolResult(
        content=blocks, structuredContent=json.loads(structured) if structured else None
    )
