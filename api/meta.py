"""Health, a chat's sessions, and the OpenAPI document.

Health and the document name no session and need no caller (Easy Auth still
asks for sign-in on everything but ``/api/health``), except ``check=llm``,
which calls the model and so needs one; a chat's sessions are the caller's
own: chat ids are per owner (``shared.usecases.access.chat_key``).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import azure.durable_functions as df
import azure.functions as func

from api.caller import caller
from api.errors import HttpError, handled, json_response
from api.transport import http_function
from api.views import session_view
from shared.adapters.stores.base import SESSION_ID_RE
from shared.bootstrap import services
from shared.usecases.access import chat_key, visible

bp = df.Blueprint()
OPENAPI_FILE = Path(__file__).with_name("openapi.json")


@bp.route(route="health", methods=["GET"])
@http_function
@handled
async def health(req: func.HttpRequest) -> func.HttpResponse:
    svc = services()
    checks = {}
    for name, store in (("sessions", svc.sessions), ("memory", svc.memory)):
        try:
            await asyncio.to_thread(store.ping)
            checks[name] = {"kind": store.kind, "ok": True}
        except Exception as exc:
            checks[name] = {"kind": store.kind, "ok": False, "error": type(exc).__name__}
    healthy = all(c["ok"] for c in checks.values())
    body = {
        "status": "ok" if healthy else "degraded",
        "reasoner": svc.settings.effective_reasoner,
        "search_providers": svc.settings.effective_search_providers,
        "stores": checks,
    }
    check = req.params.get("check", "")
    if check not in ("", "llm"):
        raise HttpError(422, "validation_error", f"check must be 'llm', not {check!r}")
    if check == "llm":
        # model calls cost money: only a signed-in caller may ask for them
        await caller(req, svc)
        if not svc.settings.llm_configured:
            raise HttpError(
                409,
                "llm_not_configured",
                "no LLM endpoint is configured (OPENAI_API_KEY, OPENAI_BASE_URL or "
                "AZURE_OPENAI_ENDPOINT); the offline reasoner needs no check",
            )
        models = await asyncio.to_thread(svc.check_llm)
        body["llm"] = models
        healthy = healthy and all(m["ok"] for m in models)
        body["status"] = "ok" if healthy else "degraded"
    return json_response(body, status=200 if healthy else 503)


@bp.route(route="chats/{chat_id}/sessions", methods=["GET"])
@http_function
@handled
async def chat_sessions(req: func.HttpRequest) -> func.HttpResponse:
    svc = services()
    principal = await caller(req, svc)
    chat_id = req.route_params.get("chat_id", "")
    if not SESSION_ID_RE.match(chat_id):
        raise HttpError(422, "validation_error", f"invalid chat id {chat_id!r}")
    stored = await asyncio.to_thread(svc.sessions.list_by_chat, chat_key(principal.owner, chat_id))
    records = visible(principal, stored)
    return json_response({"chat_id": chat_id, "sessions": [session_view(svc, r) for r in records]})


@bp.route(route="openapi.json", methods=["GET"])
@http_function
@handled
async def openapi(req: func.HttpRequest) -> func.HttpResponse:
    document = json.loads(OPENAPI_FILE.read_text(encoding="utf-8"))
    return json_response(document)
