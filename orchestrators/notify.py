"""A one-activity orchestration that delivers a webhook durably.

Used when the run itself can no longer send it (a cancelled instance is
terminated): the delivery is retried and survives a host restart, instead of
living in a background thread of an HTTP handler.
"""

from __future__ import annotations

import azure.durable_functions as df

from orchestrators.common import step
from shared.core import names
from shared.core.payloads import NotifyIn

bp = df.Blueprint()


@bp.orchestration_trigger(context_name="context")
def notify_orchestrator(context: df.DurableOrchestrationContext):
    note = NotifyIn.model_validate(context.get_input())
    return (yield from step(context, names.NOTIFY, note))
