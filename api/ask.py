"""Ask a finished session: ``POST /api/research/{id}/ask`` and the exchanges so far.

A thin HTTP shell around ``shared.usecases.ask`` (the MCP tool ``ask_research``
calls ``ask_session`` too). Only the session's owner may ask: asking spends the
session's budget, so it is an action, and anyone else gets the 404 an unknown id
gets; reading the exchanges is a read (an admin may read them, as the report).
The reasoner's call runs in a thread: store SDKs and the model client are synchronous.
"""

from __future__ import annotations

import asyncio

import azure.durable_functions as df
import azure.functions as func

from api.caller import caller, route_session
from api.errors import handled, json_response, read_json, route_session_id
from api.schemas import AskRequest
from api.transport import http_function
from shared.adapters.identity import Principal
from shared.bootstrap import services
from shared.usecases import ask
from shared.usecases.access import session_for

bp = df.Blueprint()


@bp.route(route="research/{session_id}/ask", methods=["POST"])
@http_function
@handled
async def ask_research(req: func.HttpRequest) -> func.HttpResponse:
    principal = await caller(req, services())
    body = AskRequest.model_validate(read_json(req))
    return json_response(await ask_session(principal, route_session_id(req), body))


async def ask_session(principal: Principal, session_id: str, body: AskRequest) -> dict:
    """The exchange, as the HTTP route and the MCP tool return it."""
    svc = services()
    record = await asyncio.to_thread(session_for, svc, principal, session_id, "act")
    exchange = await asyncio.to_thread(ask.ask, svc, record, body.question)
    return exchange.model_dump(mode="json")


@bp.route(route="research/{session_id}/asks", methods=["GET"])
@http_function
@handled
async def research_asks(req: func.HttpRequest) -> func.HttpResponse:
    svc = services()
    _, record = await route_session(req, svc)
    found = await asyncio.to_thread(ask.exchanges, svc, record.id)
    return json_response({"exchanges": [e.model_dump(mode="json") for e in found]})
