"""The caller of an HTTP request and the sessions they may see (shared/usecases/access.py at the
edge).

Every route that touches a session starts with one of these; ``api.errors``
turns ``UnauthorizedError`` into 401 and ``NotFoundError`` into 404.
"""

from __future__ import annotations

import asyncio

import azure.functions as func

from api.errors import route_session_id
from shared.adapters.identity import ANONYMOUS, Principal, system_principal
from shared.core.session_models import SessionRecord
from shared.ports import Services
from shared.usecases.access import Action, session_for

MCP_OWNER_ID = "mcp-system-key"  # the owner of sessions started through MCP tools


async def caller(req: func.HttpRequest, svc: Services) -> Principal:
    """The verified caller (``UnauthorizedError`` if none); jwt mode may fetch keys, in a thread."""
    authenticator = svc.authenticator
    if authenticator.may_block:
        return await asyncio.to_thread(authenticator.principal, req.headers)
    return authenticator.principal(req.headers)


async def route_session(
    req: func.HttpRequest, svc: Services, action: Action = "read"
) -> tuple[Principal, SessionRecord]:
    """The caller and the ``{session_id}`` session, if they may ``action`` it (else 404)."""
    principal = await caller(req, svc)
    session_id = route_session_id(req)
    record = await asyncio.to_thread(session_for, svc, principal, session_id, action)
    return principal, record


def tool_caller(svc: Services) -> Principal:
    """Who calls an MCP tool. The extension admits only holders of its system key and
    passes no identity, so with sign-in on the key's holders are one owner of their own
    (``MCP_OWNER_ID``, a system owner no token can name): they see the sessions they
    started through MCP and nobody else's. Without sign-in (``AUTH_MODE=none``)
    everyone is the one anonymous owner."""
    if svc.settings.auth_mode == "none":
        return ANONYMOUS
    return system_principal(MCP_OWNER_ID)
