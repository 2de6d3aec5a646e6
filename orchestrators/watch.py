"""A watched question: an eternal orchestration that runs the research on its schedule.

    [durable timer until the run is due] ─► watch_run_start ─► stop | skip |
        run: the mode's orchestration as a sub-orchestration (instance = its session id)
        ─► watch_compare (what changed since the last run; the webhook if anything did)
    ─► continue_as_new(next run, next due)

Why a restart neither skips nor doubles a run: the timer is durable (it fires once,
also after the host was down at its time), the session id and the sub-orchestration's
instance id derive from the watch id and the run number, and the run-start activity
is idempotent for them. The next due time is computed by that activity (from the
cron schedule and the clock) and comes back through history, so a replay takes the
same path. ``continue_as_new`` keeps the history one run long however long the
watch lives. The only clock read here is ``context.current_utc_datetime``.
"""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime

import azure.durable_functions as df

from shared.core import names
from shared.core.payloads import FAILURE_KEY
from shared.core.watch_models import WatchRunRef, WatchStep, WatchTick

bp = df.Blueprint()
RETRY = df.RetryOptions(1000, 3)


@bp.orchestration_trigger(context_name="context")
def watch_orchestrator(context: df.DurableOrchestrationContext):
    tick = WatchTick.model_validate(context.get_input())
    now = context.current_utc_datetime
    due = _like(tick.due, now) if tick.due is not None else None
    if due is not None and due > now:
        yield context.create_timer(due)
    decided = yield context.call_activity_with_retry(
        names.WATCH_RUN_START, RETRY, tick.model_dump(mode="json")
    )
    if isinstance(decided, dict) and FAILURE_KEY in decided:  # the watch cannot be read
        return {"stopped_at_run": tick.run, "failure": decided[FAILURE_KEY]}
    step = WatchStep.model_validate(decided)
    if step.action == "stop":
        return {"stopped_at_run": tick.run}
    run = tick.run
    if step.action == "run":
        session_id = step.start_input["session_id"]
        # a failed run is recorded as failed by the compare; the schedule goes on
        with contextlib.suppress(Exception):
            yield context.call_sub_orchestrator(step.orchestrator, step.start_input, session_id)
        ref = WatchRunRef(watch_id=tick.watch_id, run=run)
        yield context.call_activity_with_retry(names.WATCH_COMPARE, RETRY, ref.model_dump())
    following = WatchTick(watch_id=tick.watch_id, run=step.next_run or run, due=step.next_due)
    context.continue_as_new(following.model_dump(mode="json"))


def _like(when: datetime, now: datetime) -> datetime:
    """``when`` (UTC) as aware or naive as the SDK's clock, so the two compare."""
    if now.tzinfo is None:
        return when.astimezone(UTC).replace(tzinfo=None)
    return when if when.tzinfo else when.replace(tzinfo=UTC)
