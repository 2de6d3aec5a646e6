"""Plan approval over HTTP: approve, edit or cancel a deep research plan that waits for it.

``POST research/{id}/plan`` with ``{"action": "approve"}``, ``{"action": "edit",
"topics": [...], "num_agents": n}`` or ``{"action": "cancel"}``. The decision is
recorded in the session first (``shared/usecases/plan_review.decide``: validated, 422
naming the field when the caps do not allow it, 409 when nothing waits), then
the run is told through its durable event; cancelling is the ordinary cancel.
The MCP tool ``review_plan`` calls :func:`review` too.
"""

from __future__ import annotations

import asyncio

import azure.durable_functions as df
import azure.functions as func

from api import research
from api.caller import caller
from api.errors import handled, json_response, read_json, route_session_id
from api.schemas import PlanDecision
from api.transport import http_function
from api.views import session_view
from shared.adapters.identity import Principal
from shared.bootstrap import services
from shared.core import names
from shared.core.errors import ConflictError
from shared.core.session_models import SessionRecord, SessionStatus
from shared.usecases import plan_review
from shared.usecases.access import session_for

bp = df.Blueprint()


@bp.route(route="research/{session_id}/plan", methods=["POST"])
@bp.durable_client_input(client_name="client")
@http_function
@handled
async def review_research_plan(req: func.HttpRequest, client) -> func.HttpResponse:
    svc = services()
    principal = await caller(req, svc)
    decision = PlanDecision.model_validate(read_json(req))
    record = await review(client, principal, route_session_id(req), decision)
    return json_response(session_view(svc, record), status=202)


async def review(
    client, principal: Principal, session_id: str, decision: PlanDecision
) -> SessionRecord:
    """Apply the owner's decision on the plan the session waits with."""
    svc = services()
    before = await asyncio.to_thread(session_for, svc, principal, session_id, "act")
    if before.status != SessionStatus.waiting_plan_approval or before.plan_approval is None:
        raise ConflictError(
            f"session {session_id} is {before.status.value}, not waiting for its plan's approval"
        )
    if decision.action == "cancel":
        return await research.cancel(client, principal, session_id)
    record = await asyncio.to_thread(
        plan_review.decide, svc, session_id, decision.topics, decision.num_agents
    )
    try:
        await client.raise_event(record.instance_id, names.PLAN_EVENT, {"action": decision.action})
    except Exception:
        await asyncio.to_thread(plan_review.undo_decision, svc, session_id, before.plan_approval)
        raise
    return record
