"""Model calls that take long are shown while they run, so a slow model reads as work.

A local model writing a report can take minutes; a status that says only
"writing_report" for that long reads as a hang. The activity running a step
opens ``watching(after, report)``; every model call inside it (``model_call``)
starts a timer, and a call still running ``after`` seconds later is reported
(``report(model, started_at)``, which records it with the session and returns
what clears it). Calls that finish sooner cost nothing: no write at all. The
timer thread, not the call's, does the reporting, so the call is never slowed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime

log = logging.getLogger(__name__)

Clear = Callable[[], None]
Report = Callable[[str, datetime], Clear]


@dataclass(frozen=True)
class _Watch:
    after: float
    report: Report


_watch: ContextVar[_Watch | None] = ContextVar("slow_model_calls", default=None)


@contextmanager
def watching(after: float, report: Report) -> Iterator[None]:
    """Report the model calls made inside that run longer than ``after`` seconds."""
    token = _watch.set(_Watch(after, report))
    try:
        yield
    finally:
        _watch.reset(token)


@contextmanager
def model_call(model: str) -> Iterator[None]:
    """One call to ``model``; reported if it outlasts the current watch's threshold."""
    watch = _watch.get()
    if watch is None:
        yield
        return
    started = datetime.now(UTC)
    lock = threading.Lock()
    state: dict[str, Clear | bool] = {"done": False}

    def report() -> None:
        with lock:
            if state["done"]:
                return
            try:
                state["clear"] = watch.report(model, started)
            except Exception as exc:  # showing progress must never fail the call
                log.warning("could not show a slow call to %s: %s", model, exc)

    timer = threading.Timer(watch.after, report)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            clear = state.get("clear")
        if callable(clear):
            try:
                clear()
            except Exception as exc:
                log.warning("could not clear a slow call to %s: %s", model, exc)
