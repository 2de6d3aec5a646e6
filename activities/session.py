"""Activities that record a session's progress and outcome, and send webhooks."""

from __future__ import annotations

import azure.durable_functions as df

from activities.common import run_step
from shared.core.payloads import CompleteSessionIn, NotifyIn, UpdateSessionIn
from shared.usecases import sessions

bp = df.Blueprint()


@bp.activity_trigger(input_name="payload")
def update_session(payload: dict) -> dict:
    return run_step(payload, UpdateSessionIn, sessions.update_session)


@bp.activity_trigger(input_name="payload")
def complete_session(payload: dict) -> dict:
    return run_step(
        payload,
        CompleteSessionIn,
        lambda svc, req: {"status": sessions.complete_session(svc, req).status.value},
    )


@bp.activity_trigger(input_name="payload")
def notify(payload: dict) -> dict:
    return run_step(payload, NotifyIn, sessions.notify)
