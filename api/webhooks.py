"""Webhook redelivery: a session's last event sent again when its user asks.

The session status shows the webhook's last attempt and its error (``webhook``
in the view); after fixing a receiver, the user asks for the last event again
here. It goes through the same outbox and ``notify`` orchestration as every
delivery, with the same ``webhook-id``, so a receiver that did get it drops it.
Each redelivery is its own Durable instance, named by the session's instance
rule (``shared.core.names.session_instance_id``) so deleting the session purges it;
a few per hour at most (429 with ``Retry-After`` beyond).
"""

from __future__ import annotations

import asyncio

import azure.durable_functions as df
import azure.functions as func

from api.caller import caller
from api.errors import handled, json_response, route_session_id
from api.transport import http_function
from api.views import session_view
from shared.adapters.identity import Principal
from shared.bootstrap import services
from shared.core import names
from shared.core.payloads import NotifyIn
from shared.core.session_models import SessionRecord
from shared.usecases import sessions
from shared.usecases.access import session_for

bp = df.Blueprint()


@bp.route(route="research/{session_id}/webhook/redeliver", methods=["POST"])
@bp.durable_client_input(client_name="client")
@http_function
@handled
async def redeliver_webhook(req: func.HttpRequest, client) -> func.HttpResponse:
    svc = services()
    principal = await caller(req, svc)
    record = await redeliver(client, principal, route_session_id(req))
    return json_response(session_view(svc, record), status=202)


async def redeliver(client, principal: Principal, session_id: str) -> SessionRecord:
    """Send the owner's last event again (ConflictError: no callback, no event, or one
    on its way; RateLimited: asked too often, see ``shared.usecases.webhook_outbox``)."""
    svc = services()
    session_id = (await asyncio.to_thread(session_for, svc, principal, session_id, "act")).id
    record, event, number = await asyncio.to_thread(sessions.redeliver_last_event, svc, session_id)
    instance = names.session_instance_id(session_id, names.redelivery_role(event.event, number))
    note = NotifyIn(session_id=session_id, event=event.event)
    try:
        await client.start_new(names.NOTIFY_ORCHESTRATOR, instance, note.model_dump(mode="json"))
    except Exception:
        await asyncio.to_thread(sessions.undo_redelivery, svc, session_id, event)
        raise
    return record
