"""Trace and span ids derived from the session, so every worker names the same spans.

The session's trace id, its root span id and each phase's span id are hashes
of the session id (and the phase), so an activity can name its parent phase
without a context travelling through the orchestrator's history, and the span
the completing activity emits later gets exactly that id. ``SessionIds`` is the
SDK's id generator with one twist: inside ``fixed(...)`` it hands out the
given ids; everywhere else it is the random generator it wraps.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from opentelemetry.sdk.trace.id_generator import IdGenerator, RandomIdGenerator

_fixed: ContextVar[tuple[int, int] | None] = ContextVar("telemetry_fixed_ids", default=None)


def _digest(*parts: str) -> bytes:
    return hashlib.sha256("\x1f".join(parts).encode()).digest()


def _nonzero(value: int) -> int:
    return value or 1  # zero is the invalid id; a hash of zero is astronomically unlikely


def trace_id(session_id: str) -> int:
    """The session's 128-bit trace id."""
    return _nonzero(int.from_bytes(_digest("trace", session_id)[:16], "big"))


def session_span_id(session_id: str) -> int:
    return _nonzero(int.from_bytes(_digest("session", session_id)[:8], "big"))


def phase_span_id(session_id: str, phase: str, seq: int) -> int:
    """The span of the ``seq``-th time the session entered ``phase`` (from 1)."""
    return _nonzero(int.from_bytes(_digest("phase", session_id, phase, str(seq))[:8], "big"))


@contextmanager
def fixed(trace: int, span: int) -> Iterator[None]:
    """The span started inside gets these ids (a root span takes the trace id too)."""
    token = _fixed.set((trace, span))
    try:
        yield
    finally:
        _fixed.reset(token)


class SessionIds(IdGenerator):
    def __init__(self, fallback: IdGenerator | None = None) -> None:
        self._fallback = fallback or RandomIdGenerator()

    def generate_span_id(self) -> int:
        chosen = _fixed.get()
        return chosen[1] if chosen else self._fallback.generate_span_id()

    def generate_trace_id(self) -> int:
        chosen = _fixed.get()
        return chosen[0] if chosen else self._fallback.generate_trace_id()
