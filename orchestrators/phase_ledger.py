"""Per-phase time and usage of a run, kept from the orchestration's own clock.

``enter`` is called where the run changes phase (``Run.set_phase``); ``close`` at
the finish. Times are ``context.current_utc_datetime`` and usage is the run's
running total at each change, so the figures are identical on every replay and
add up to the session's duration and usage. ``tag`` names, for each activity
scheduled, the phase span it belongs under (``shared/tools/telemetry``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from weakref import WeakKeyDictionary

import azure.durable_functions as df

from shared.core.phase_models import PhaseFigures, TraceTag
from shared.core.session_models import Usage


class Ledger:
    def __init__(self, session_id: str, started: datetime) -> None:
        self.session_id = session_id
        self.started = started
        self.phases: list[PhaseFigures] = []
        self._open: tuple[str, int, datetime, Usage] | None = None
        self._entries: dict[str, int] = {}

    def enter(self, phase: str, now: datetime, usage: Usage) -> None:
        if self._open and self._open[0] == phase:
            return
        self.close(now, usage)
        seq = self._entries[phase] = self._entries.get(phase, 0) + 1
        self._open = (phase, seq, now, usage)

    def close(self, now: datetime, usage: Usage) -> list[PhaseFigures]:
        if self._open is not None:
            phase, seq, started, before = self._open
            self.phases.append(
                PhaseFigures(
                    phase=phase,
                    seq=seq,
                    started_at=started,
                    ended_at=now,
                    seconds=round((now - started).total_seconds(), 3),
                    usage=_spent(before, usage),
                )
            )
            self._open = None
        return self.phases

    def tag(self, activity: str) -> TraceTag:
        phase, seq = (self._open[0], self._open[1]) if self._open else (None, 1)
        return TraceTag(session_id=self.session_id, activity=activity, phase=phase, seq=seq)


_ledgers: WeakKeyDictionary[Any, Ledger] = WeakKeyDictionary()


def enter(
    context: df.DurableOrchestrationContext, session_id: str, phase: str, usage: Usage
) -> None:
    """The run is in ``phase`` from now on (entering the phase it is in changes nothing)."""
    now = context.current_utc_datetime
    ledger = _ledgers.get(context)
    if ledger is None:
        ledger = _ledgers[context] = Ledger(session_id, now)
    ledger.enter(phase, now, usage)


def close(context: df.DurableOrchestrationContext, usage: Usage) -> Ledger | None:
    """The run's ledger with its last phase ended (``None`` for a run without phases)."""
    ledger = _ledgers.get(context)
    if ledger is not None:
        ledger.close(context.current_utc_datetime, usage)
    return ledger


def tag(context: df.DurableOrchestrationContext, activity: str) -> dict | None:
    ledger = _ledgers.get(context)
    return ledger.tag(activity).model_dump() if ledger else None


def _spent(before: Usage, after: Usage) -> Usage:
    return Usage(
        llm_calls=after.llm_calls - before.llm_calls,
        prompt_tokens=after.prompt_tokens - before.prompt_tokens,
        completion_tokens=after.completion_tokens - before.completion_tokens,
        cost=round(after.cost - before.cost, 6),
    )
