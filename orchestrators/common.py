"""Pieces every mode orchestration shares: retried calls, progress, the finish.

Deterministic by construction: no clock but ``context.current_utc_datetime``,
no I/O, ids derived from the instance id and counters.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

import azure.durable_functions as df
from pydantic import BaseModel

from orchestrators import phase_ledger
from shared.core import names
from shared.core.payloads import FAILURE_KEY, CompleteSessionIn, NotifyIn, StepFailure
from shared.core.phase_models import TRACE_KEY, SessionPhases
from shared.core.session_models import Progress, SessionStatus, StartInput, Usage

# Orchestrations whose input carries no caps (the webhook one) retry like the defaults.
DEFAULT_RETRY = (1000, 3)
M = TypeVar("M", bound=BaseModel)
_retry_by_context: WeakKeyDictionary[Any, df.RetryOptions] = WeakKeyDictionary()

EVENT_BY_STATUS = {
    SessionStatus.completed: "completed",
    SessionStatus.failed: "failed",
    SessionStatus.cancelled: "cancelled",
}


class StepFailed(Exception):
    """An activity failed permanently (it returned a ``StepFailure``): not worth a retry."""

    def __init__(self, activity: str, failure: StepFailure) -> None:
        super().__init__(f"{activity}: {failure.error}")
        self.usage = failure.usage


def retry_options(context: df.DurableOrchestrationContext) -> df.RetryOptions:
    """ACTIVITY_RETRY_* from the caps in the orchestration input (1.x has no back-off factor).

    Read once per context: ``get_input`` parses the input JSON on every call.
    """
    options = _retry_by_context.get(context)
    if options is None:
        caps = (context.get_input() or {}).get("caps") or {}
        first, attempts = (
            caps.get("retry_first_interval_ms", DEFAULT_RETRY[0]),
            caps.get("retry_max_attempts", DEFAULT_RETRY[1]),
        )
        options = df.RetryOptions(first, attempts)
        _retry_by_context[context] = options
    return options


def call(context: df.DurableOrchestrationContext, name: str, payload: BaseModel) -> Any:
    """Schedule an activity with the session's retry policy; yield the returned task.

    The task's result may be a ``StepFailure`` envelope: pass it through
    :func:`checked` (or use :func:`step`, which does).
    """
    body = payload.model_dump(mode="json")
    trace_tag = phase_ledger.tag(context, name)
    if trace_tag is not None:
        body[TRACE_KEY] = trace_tag
    return context.call_activity_with_retry(name, retry_options(context), body)


def step(
    context: df.DurableOrchestrationContext, name: str, payload: BaseModel
) -> Generator[Any, Any, Any]:
    """Run one activity to its result; a permanent failure raises ``StepFailed``."""
    result = yield call(context, name, payload)
    return checked(name, result)


def checked(name: str, result: Any) -> Any:
    """``result`` itself; a failed task's exception, or ``StepFailed`` for a failure envelope."""
    if isinstance(result, Exception):
        raise result
    if isinstance(result, dict) and FAILURE_KEY in result:
        raise StepFailed(name, StepFailure.model_validate(result[FAILURE_KEY]))
    return result


def outcome(name: str, result: Any, model: type[M], failed: Callable[[str, Usage], M]) -> M:
    """A settled activity result as ``model``; any failure as ``failed(error, usage spent)``.

    For work whose failure degrades the run instead of ending it (a search, a
    page, a researcher, the PDF): after retries, or permanent, it becomes data.
    """
    try:
        return model.model_validate(checked(name, result))
    except Exception as exc:
        return failed(error_text(exc), getattr(exc, "usage", None) or Usage())


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
    ledger = phase_ledger.close(context, usage)
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
        phases=SessionPhases(started_at=ledger.started, phases=ledger.phases) if ledger else None,
    )
    yield from step(context, names.COMPLETE_SESSION, done)
    if inp.callback_url and status in EVENT_BY_STATUS:
        event = EVENT_BY_STATUS[status]
        note = NotifyIn(session_id=inp.session_id, event=event)
        yield from step(context, names.NOTIFY, note)
    return {
        "session_id": inp.session_id,
        "status": status.value,
        "answer_ref": answer_ref,
        "report_ref": report_ref,
    }


def error_text(exc: BaseException) -> str:
    """Activity failures arrive as ``Exception("{Reason} \\n {Details}")``; keep the reason."""
    return str(exc).split("\n", 1)[0].strip()[:500] or type(exc).__name__
