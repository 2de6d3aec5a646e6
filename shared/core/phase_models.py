"""Where a session's time and money went, and how an activity joins its phase's span.

The records (``PhaseFigures``, ``SessionPhases``) live beside ``Usage`` in
``session_models``: the orchestrator keeps them (``orchestrators/phase_ledger.py``)
from its own clock and the usage its activities returned, so they are the same on
every replay and add up to the session's duration and ``usage``. The session, its
status and ``report.json`` carry them; the trace's phase spans are made from them.
"""

from __future__ import annotations

from pydantic import BaseModel

from shared.core.session_models import PhaseFigures, SessionPhases

__all__ = ["TRACE_KEY", "PhaseFigures", "SessionPhases", "TraceTag"]


class TraceTag(BaseModel):
    """What an activity needs to join its session's trace under the right phase span."""

    session_id: str
    activity: str
    phase: str | None = None
    seq: int = 1


TRACE_KEY = "_trace"  # the activity input's key holding its TraceTag
