"""Pieces every mode orchestration shares: retried calls, progress, the finish.

Deterministic by construction: no clock but ``context.current_utc_datetime``,
no I/O, ids derived from the instance id and counters.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import azure.durable_functions as df
from pydantic import BaseModel

from shared import names
from shared.models import Progress, SessionStatus, StartInput, Usage
from shared.payloads import CompleteSessionIn, NotifyIn

# A failed activity is retried by the host: 3 attempts, 1 s apart (1.x has no back-off factor).
ACTIVITY_RETRY = df.RetryOptions(
    first_retry_interval_in_milliseconds=1000, max_number_of_attempts=3
)

EVENT_BY_STATUS = {
    SessionStatus.completed: "completed",
    SessionStatus.failed: "failed",
    SessionStatus.cancelled: "cancelled",
}


def call(context: df.DurableOrchestrationContext, name: str, payload: BaseModel) -> Any:
    """Schedule an activity with the standard retry policy; yield the returned task."""
    return context.call_activity_with_retry(name, ACTIVITY_RETRY, payload.model_dump(mode="json"))


def gather(context: df.DurableOrchestrationContext, tasks: list) -> Generator[Any, Any, list]:
    """``task_all`` that tolerates an empty list (older SDKs hung on it)."""
    if not tasks:
        return []
    results = yield context.task_all(tasks)
    return results


def settle(context: df.DurableOrchestrationContext, tasks: list) -> Generator[Any, Any, list]:
    """Wait for every task; a failed one gives its exception instead of a result.

    ``task_all`` fails as soon as one task fails while the others may still be
    running; callers that write after the wait need all of them finished.
    """
    pending = list(tasks)
    while pending:
        done = yield context.task_any(pending)
        pending = [task for task in pending if task is not done]
    return [task.result for task in tasks]


def publish(context: df.DurableOrchestrationContext, progress: Progress) -> None:
    """Custom status (< 16 KB) for live polling; it is sent at the next yield."""
    context.set_custom_status(progress.model_dump(mode="json"))


def finish(
    context: df.DurableOrchestrationContext,
    inp: StartInput,
    status: SessionStatus,
    usage: Usage,
    progress: Progress,
    answer_ref: str | None = None,
    report_ref: str | None = None,
    error: str | None = None,
) -> Generator[Any, Any, dict]:
    """Record the outcome in the session, then tell the caller's webhook (if any).

    The live phase reads "finishing" until the session document holds the final
    status, so a client watching ``phase`` never sees "completed" too early.
    """
    progress.phase = "finishing"
    publish(context, progress)
    done = CompleteSessionIn(
        session_id=inp.session_id,
        status=status,
        usage=usage,
        answer_ref=answer_ref,
        report_ref=report_ref,
        error=error,
        progress=progress.model_copy(update={"phase": status.value}),
    )
    yield call(context, names.COMPLETE_SESSION, done)
    if inp.callback_url and status in EVENT_BY_STATUS:
        event = EVENT_BY_STATUS[status]
        note = NotifyIn(
            session_id=inp.session_id, event=event, event_id=f"{inp.session_id}:{event}"
        )
        yield call(context, names.NOTIFY, note)
    return {
        "session_id": inp.session_id,
        "status": status.value,
        "answer_ref": answer_ref,
        "report_ref": report_ref,
    }


def error_text(exc: BaseException) -> str:
    """Activity failures arrive as ``Exception("{Reason} \\n {Details}")``; keep the reason."""
    return str(exc).split("\n", 1)[0].strip()[:500] or type(exc).__name__
