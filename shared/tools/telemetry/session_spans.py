"""The session's span and its phases' spans, emitted once when the session completes.

The orchestrator cannot emit them (it replays), and no single activity lives
as long as a phase, so the activity that completes the session emits them from
the phase figures the orchestrator kept, with the ids every activity span
already named as its parent (``ids.py``). They are emitted last, after the
session is written, so only a completion that ran to its end emits them.
"""

from __future__ import annotations

from datetime import datetime

from shared.core.phase_models import PhaseFigures
from shared.core.session_models import Usage
from shared.tools.telemetry import ids, tracing
from shared.tools.telemetry.usage_attributes import usage_attributes


def emit_session(
    session_id: str,
    mode: str,
    status: str,
    started: datetime,
    ended: datetime,
    phases: list[PhaseFigures],
    usage: Usage,
) -> None:
    if not tracing.enabled():
        return
    trace_id = ids.trace_id(session_id)
    attributes = {
        "session.id": session_id,
        "research.mode": mode,
        "research.status": status,
        **usage_attributes(usage),
    }
    tracing.emit(
        f"session {mode}", trace_id, ids.session_span_id(session_id), started, ended, attributes
    )
    for figures in phases:
        tracing.emit(
            f"phase {figures.phase}",
            trace_id,
            ids.phase_span_id(session_id, figures.phase, figures.seq),
            figures.started_at,
            figures.ended_at,
            {
                "session.id": session_id,
                "research.phase": figures.phase,
                "research.phase.seq": figures.seq,
                **usage_attributes(figures.usage),
            },
            context=tracing.parent(session_id),
        )
