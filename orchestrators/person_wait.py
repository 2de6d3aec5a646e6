"""Waiting for a person: the one durable wait clarification and plan approval share.

    record the status (the session shows what is asked) ─► notify the caller's webhook
      ─► wait_for_external_event(event) raced with create_timer(deadline)
      ─► the reply wins: cancel the timer │ the timer wins: no reply

Nothing runs and nothing is paid while the person thinks, and a restarted host
resumes the same wait from history. The timer is cancelled when the reply wins:
a live timer keeps the instance running until it fires. Deadlines longer than
six days cannot be cancelled in azure-functions-durable 1.x, which is why the
timeouts that feed ``deadline`` are bounded in the settings.

Deterministic: the caller derives ``deadline`` from ``context.current_utc_datetime``,
and the helper schedules the same actions in the same order on every replay.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import azure.durable_functions as df

from orchestrators.common import step
from orchestrators.queue_state import Run
from shared.core import names
from shared.core.payloads import NotifyIn, UpdateSessionIn


@dataclass(frozen=True)
class Ask:
    """What to show while waiting and whom to tell.

    ``phase`` is the live phase during the wait; ``record`` writes the status and the
    question into the session, where the API reads the question (the live progress is
    added here); ``notice`` is the webhook event sent when the session has a callback
    URL; ``reply_event`` is the external event the API raises once it has recorded the
    person's reply.
    """

    phase: str
    record: UpdateSessionIn
    notice: str
    reply_event: str
    deadline: datetime


@dataclass(frozen=True)
class Reply:
    """The person's reply (``data`` as the API raised it), or ``timed_out`` with no data."""

    timed_out: bool
    data: Any = None


def wait_for_person(
    context: df.DurableOrchestrationContext, run: Run, ask: Ask
) -> Generator[Any, Any, Reply]:
    """Record, notify, then race the reply against ``ask.deadline`` (see the module docstring)."""
    run.set_phase(context, ask.phase)
    record = ask.record.model_copy(update={"progress": run.progress})
    yield from step(context, names.UPDATE_SESSION, record)
    if run.inp.callback_url:
        note = NotifyIn(session_id=ask.record.session_id, event=ask.notice)
        yield from step(context, names.NOTIFY, note)
    timer = context.create_timer(ask.deadline)
    reply = context.wait_for_external_event(ask.reply_event)
    winner = yield context.task_any([reply, timer])
    if winner is reply:
        timer.cancel()
        return Reply(timed_out=False, data=reply.result)
    return Reply(timed_out=True)
