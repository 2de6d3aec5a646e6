"""MCP tools: the research API for agents and chat clients (Azure Functions MCP extension).

In Azure the extension serves every tool here at ``/runtime/webhooks/mcp``
(streamable HTTP; ``/runtime/webhooks/mcp/sse`` for older clients) behind the
``mcp_extension`` system key; devhost serves the same paths (``devhost/mcp.py``).

Each tool is a thin call into the use case its HTTP route calls (``start``,
``answer`` and ``cancel`` in ``api/research.py``, ``current_view`` in
``api/views.py``, ``read_report`` in ``api/reports.py``): one logic, two
doors. Tool names are the Python names; the functions are registered as
``mcp_<tool>`` because the HTTP routes already have those names. No tool
waits for a run: ``start_research`` answers at once with the session id, and
the client follows with ``get_research_status``, whose ``next_step`` says
what to call next. A tool's docstring is its description for the model (it
starts on a new line so that ``mcp_tool``'s dedent leaves no indentation).

Results are ``mcp.types.CallToolResult``: JSON text for the model and the same
object as ``structuredContent`` for programs. A failure is an ``isError``
result carrying the code and message the HTTP API gives (``api/errors.classify``),
never an exception: the extension would answer an exception with a generic
error that hides the reason from the model.

``mcp_tool_property`` overrides what ``mcp_tool`` infers with its own
defaults (required, not an array), so optional and array arguments say so.

This module has no ``from __future__ import annotations`` on purpose: the
SDK's ``mcp_tool`` reads the parameter annotations at import time to build
each tool's input schema, and string annotations would all read as strings.
"""

import asyncio
import functools
import json
from collections.abc import Awaitable, Callable
from typing import Any

import azure.durable_functions as df
from azure.functions import McpPropertyType
from mcp.types import CallToolResult, TextContent

from api import ask, plan, reports, research
from api.caller import tool_caller
from api.errors import ClientError, classify, known_session_id
from api.schemas import AskRequest, ClarificationReply, PlanDecision, ResearchRequest
from api.views import current_view, session_view
from shared.bootstrap import services
from shared.core.limits import NUM_AGENTS
from shared.usecases.access import session_for

bp = df.Blueprint()

SESSION_ID = "The session id that start_research returned."
NEXT_STEP = {
    "waiting_clarification": "Answer the clarification questions with answer_clarification.",
    "waiting_plan_approval": "Show the user the plan (topics, queries, num_agents) and call "
    "review_plan with action approve, edit (with topics and/or num_agents) or cancel.",
    "completed": "Read the result with get_research_report; ask about it with ask_research.",
    "failed": "Read what could be written with get_research_report; 'error' says what failed.",
    "cancelled": "Nothing more will happen in this session.",
    "superseded": "A newer request in the chat replaced this session; nothing more will happen.",
}
FOLLOW = "Call get_research_status again in a few seconds (a deep research takes minutes)."


def tool_result(fn: Callable[..., Awaitable[dict | str]]) -> Callable[..., Awaitable[Any]]:
    """A use case's dict (or Markdown text) as a CallToolResult; any error as an isError one."""

    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> dict:
        try:
            value = await fn(*args, **kwargs)
        except Exception as exc:
            return error_result(classify(exc, fn.__name__))
        if isinstance(value, str):
            return CallToolResult(content=[TextContent(type="text", text=value)])
        text = json.dumps(value, default=str, ensure_ascii=False)
        content = [TextContent(type="text", text=text)]
        return CallToolResult(content=content, structuredContent=value)

    return wrapper


def error_result(error: ClientError) -> dict:
    """
    The HTTP API's error body, as an MCP tool error the model can read and act on."""
    reasons = [
        f"{'.'.join(str(p) for p in d['loc'])}: {d['msg']}"
        for d in error.details
        if isinstance(d, dict) and "loc" in d and "msg" in d
    ]
    text = f"{error.code}: {error.message}" + (" (" + "; ".join(reasons) + ")" if reasons else "")
    body = {"error": {"code": error.code, "message": error.message, "details": error.details}}
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structuredContent=body, isError=True
    )


def with_next_step(view: dict) -> dict:
    return view | {"next_step": NEXT_STEP.get(view["status"], FOLLOW)}


@bp.function_name("mcp_start_research")  # the HTTP route has the plain name
@bp.mcp_tool(use_result_schema=True)
@bp.mcp_tool_property(arg_name="query", description="The question to research (1-4000 chars).")
@bp.mcp_tool_property(
    arg_name="mode",
    description="chat, search, deep_search or deep_research (default): from a quick answer "
    "to a multi-agent report that takes minutes.",
    is_required=False,
)
@bp.mcp_tool_property(
    arg_name="chat_id",
    description="Optional conversation id: chat-style modes see its earlier messages; "
    "at most one deep research runs per chat.",
    is_required=False,
)
@bp.mcp_tool_property(
    arg_name="options",
    description=f"Optional caps, as in the HTTP API: num_agents ({NUM_AGENTS.range_text()}), "
    "max_iterations, enable_clarifying_questions, source_policy, max_tokens, max_cost_usd "
    "(a budget may lower the server's, never raise it), ...; follow_up_of: the session_id of "
    "a completed deep research to build on (its findings and fresh pages).",
    property_type=McpPropertyType.OBJECT,
    is_required=False,
)
@bp.durable_client_input(client_name="client")
@tool_result
async def start_research(
    query: str,
    client: df.DurableOrchestrationClient,
    mode: str = "deep_research",
    chat_id: str | None = None,
    options: dict | None = None,
) -> dict:
    """
    Start a research session and return at once with its session_id. Follow it with
    get_research_status every few seconds: a deep research may first ask clarifying
    questions (answer them with answer_clarification) and takes minutes; once the status is
    completed, read the result with get_research_report."""
    fields = {"query": query, "mode": mode, "chat_id": chat_id, "options": options}
    body = ResearchRequest.model_validate({k: v for k, v in fields.items() if v is not None})
    svc = services()
    record = await research.start(client, tool_caller(svc), body)
    return with_next_step(session_view(svc, record))


@bp.function_name("mcp_get_research_status")  # the HTTP route has the plain name
@bp.mcp_tool(use_result_schema=True)
@bp.mcp_tool_property(arg_name="session_id", description=SESSION_ID)
@bp.durable_client_input(client_name="client")
@tool_result
async def get_research_status(session_id: str, client: df.DurableOrchestrationClient) -> dict:
    """
    Status of a research session: status, phase, progress (agents, findings, source_count),
    clarification questions waiting for an answer, warnings, error, and next_step: what to
    call next."""
    svc = services()
    owned = await asyncio.to_thread(
        session_for, svc, tool_caller(svc), known_session_id(session_id)
    )
    _, view = await current_view(svc, client, owned.id)
    return with_next_step(view)


@bp.function_name("mcp_answer_clarification")  # the HTTP route has the plain name
@bp.mcp_tool(use_result_schema=True)
@bp.mcp_tool_property(arg_name="session_id", description=SESSION_ID)
@bp.mcp_tool_property(
    arg_name="answers",
    description="One answer per clarification question, in order (give this or text).",
    is_required=False,
    as_array=True,
)
@bp.mcp_tool_property(
    arg_name="text",
    description="All answers as one free text (give this or answers).",
    is_required=False,
)
@bp.durable_client_input(client_name="client")
@tool_result
async def answer_clarification(
    session_id: str,
    client: df.DurableOrchestrationClient,
    answers: list[str] | None = None,
    text: str | None = None,
) -> dict:
    """
    Answer the clarifying questions of a session whose status is waiting_clarification;
    the research then goes on. A session takes one answer."""
    fields = {"answers": answers, "text": text}
    reply = ClarificationReply.model_validate({k: v for k, v in fields.items() if v is not None})
    svc = services()
    record = await research.answer(client, tool_caller(svc), known_session_id(session_id), reply)
    return with_next_step(session_view(svc, record))


@bp.function_name("mcp_cancel_research")  # the HTTP route has the plain name
@bp.mcp_tool(use_result_schema=True)
@bp.mcp_tool_property(arg_name="session_id", description=SESSION_ID)
@bp.durable_client_input(client_name="client")
@tool_result
async def cancel_research(session_id: str, client: df.DurableOrchestrationClient) -> dict:
    """
    Cancel a running research session. A finished session cannot be cancelled."""
    svc = services()
    record = await research.cancel(client, tool_caller(svc), known_session_id(session_id))
    return with_next_step(session_view(svc, record))


@bp.function_name("mcp_get_research_report")  # the HTTP route has the plain name
@bp.mcp_tool(use_result_schema=True)
@bp.mcp_tool_property(arg_name="session_id", description=SESSION_ID)
@bp.mcp_tool_property(
    arg_name="format",
    description="md (default): the report as Markdown; json: FinalReport.",
    is_required=False,
)
@tool_result
async def get_research_report(session_id: str, format: str = "md") -> dict:
    """
    The report of a finished session (the answer, in the quicker modes), as Markdown
    with numbered citations and sources, or as JSON."""
    data = await reports.read_report(tool_caller(services()), known_session_id(session_id), format)
    if format == "json":
        return json.loads(data)
    return data.decode("utf-8")


@bp.function_name("mcp_review_plan")  # the HTTP route is review_research_plan
@bp.mcp_tool(use_result_schema=True)
@bp.mcp_tool_property(arg_name="session_id", description=SESSION_ID)
@bp.mcp_tool_property(arg_name="action", description="approve, edit or cancel.")
@bp.mcp_tool_property(
    arg_name="topics",
    description="For edit: the whole new topic list, each {id (a planned topic's id; omit "
    "for a new topic), title, queries (optional), priority (optional, 1-5)}; 1-6 topics.",
    property_type=McpPropertyType.OBJECT,
    is_required=False,
    as_array=True,
)
@bp.mcp_tool_property(
    arg_name="num_agents",
    description="For edit: how many agents research the plan (at most plan.max_agents).",
    property_type=McpPropertyType.INTEGER,  # the SDK reads `int | None` as a string
    is_required=False,
)
@bp.durable_client_input(client_name="client")
@tool_result
async def review_plan(
    session_id: str,
    action: str,
    client: df.DurableOrchestrationClient,
    topics: list[dict] | None = None,
    num_agents: int | None = None,
) -> dict:
    """
    Approve, edit or cancel the plan of a deep research whose status is
    waiting_plan_approval (started with options.require_plan_approval). The plan is in
    get_research_status's 'plan'. The research then goes on with the approved or edited
    plan, or is cancelled.
    """
    fields = {"action": action, "topics": topics, "num_agents": num_agents}
    decision = PlanDecision.model_validate({k: v for k, v in fields.items() if v is not None})
    svc = services()
    record = await plan.review(client, tool_caller(svc), known_session_id(session_id), decision)
    return with_next_step(session_view(svc, record))


@bp.function_name("mcp_ask_research")  # the HTTP route has the plain name
@bp.mcp_tool(use_result_schema=True)
@bp.mcp_tool_property(arg_name="session_id", description=SESSION_ID)
@bp.mcp_tool_property(arg_name="question", description="The question (1-2000 chars).")
@tool_result
async def ask_research(session_id: str, question: str) -> dict:
    """
    Ask a finished research a question. The answer comes from that session's own sources
    only (nothing new is searched), cites them as [n] with the report's numbering (the
    cited ones are in 'sources'), and has answered=false when the sources do not say.
    It spends the session's budget; for something new, start a follow-up research."""
    body = AskRequest.model_validate({"question": question})
    return await ask.ask_session(tool_caller(services()), known_session_id(session_id), body)
