"""Activities that record a session's progress and outcome, and send webhooks."""

from __future__ import annotations

from datetime import UTC, datetime

import azure.durable_functions as df

from activities.common import run_step
from shared.core.payloads import CompleteSessionIn, NotifyIn, UpdateSessionIn
from shared.ports import Services
from shared.tools.telemetry.session_spans import emit_session
from shared.usecases import sessions

bp = df.Blueprint()


@bp.activity_trigger(input_name="payload")
def update_session(payload: dict) -> dict:
    return run_step(payload, UpdateSessionIn, sessions.update_session)


@bp.activity_trigger(input_name="payload")
def complete_session(payload: dict) -> dict:
    return run_step(payload, CompleteSessionIn, _complete)


def _complete(svc: Services, req: CompleteSessionIn) -> dict:
    """Complete the session, then emit its trace's session and phase spans (once, last)."""
    record = sessions.complete_session(svc, req)
    started = req.phases.started_at if req.phases else record.created_at
    phases = req.phases.phases if req.phases else []
    now = datetime.now(UTC)
    emit_session(
        record.id, record.mode.value, record.status.value, started, now, phases, record.usage
    )
    return {"status": record.status.value}


@bp.activity_trigger(input_name="payload")
def notify(payload: dict) -> dict:
    return run_step(payload, NotifyIn, sessions.notify)
