"""Model calls that take long are shown while they run, so a slow model reads as work.

A local model writing a report can take minutes; a status that says only
"writing_report" for that long reads as a hang. The activity running a step
opens ``watching(after, report)``; every model call inside it (``model_call``)
is handed to one watcher thread per process, and a call still running ``after``
seconds later is reported (``report(model, started_at)``, which records it with
the session and returns what clears it). Calls that finish sooner cost nothing:
no write at all. The watcher, not the call's thread, does the reporting, so the
call is never slowed.

One thread for every call, not a ``threading.Timer`` per call: starting a thread
waits until the new thread holds the GIL, ≈ 0.04 ms idle but tens of ms while
other activities of the worker run Python (four researchers whose replies arrive
together), and every model call paid it. A call now costs a heap push under a
lock; the watcher wakes only when a deadline falls due (at most every
``TICK_SECONDS``), and drops the finished calls' entries then.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime

log = logging.getLogger(__name__)

Clear = Callable[[], None]
Report = Callable[[str, datetime], Clear]
TICK_SECONDS = 0.5  # a slow call shows this late at most; finished ones are dropped in batches


@dataclass(frozen=True)
class _Watch:
    after: float
    report: Report


_watch: ContextVar[_Watch | None] = ContextVar("slow_model_calls", default=None)


@dataclass
class _Call:
    """One running call; ``lock`` orders its report against its end."""

    model: str
    started: datetime
    report: Report
    lock: threading.Lock = field(default_factory=threading.Lock)
    done: bool = False
    clear: Clear | None = None

    def show(self) -> None:
        with self.lock:
            if self.done:
                return
            try:
                self.clear = self.report(self.model, self.started)
            except Exception as exc:  # showing progress must never fail the call
                log.warning("could not show a slow call to %s: %s", self.model, exc)

    def end(self) -> None:
        with self.lock:
            self.done = True
            clear = self.clear
        if callable(clear):
            try:
                clear()
            except Exception as exc:
                log.warning("could not clear a slow call to %s: %s", self.model, exc)


class _Watcher:
    """The calls' deadlines in a heap, and one daemon thread that sleeps until the first."""

    def __init__(self) -> None:
        self._wake = threading.Condition()
        self._due: list[tuple[float, int, _Call]] = []
        self._order = itertools.count()  # ties: never compare two calls
        self._sleeps_until = float("inf")
        self._thread: threading.Thread | None = None

    def add(self, deadline: float, call: _Call) -> None:
        with self._wake:
            heapq.heappush(self._due, (deadline, next(self._order), call))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="slow-calls", daemon=True)
                self._thread.start()
            elif deadline < self._sleeps_until:  # same `after` everywhere: rarely
                self._wake.notify()

    def pending(self) -> int:
        """Entries in the heap (finished calls stay until their deadline passes)."""
        with self._wake:
            return len(self._due)

    def _run(self) -> None:
        while True:
            with self._wake:
                due = self._pop_due(time.monotonic())
                if not due:
                    timeout = None
                    if self._due:
                        timeout = max(self._due[0][0] - time.monotonic(), TICK_SECONDS)
                    self._sleeps_until = time.monotonic() + (timeout or float("inf"))
                    self._wake.wait(timeout)
                    continue
            for call in due:  # outside the lock: a report writes to the session's store
                call.show()

    def _pop_due(self, now: float) -> list[_Call]:
        due: list[_Call] = []
        while self._due and self._due[0][0] <= now:
            call = heapq.heappop(self._due)[2]
            if not call.done:
                due.append(call)
        return due


_watcher = _Watcher()


def _fresh_watcher_after_fork() -> None:
    global _watcher
    _watcher = _Watcher()  # the parent's thread does not exist in a forked child


if hasattr(os, "register_at_fork"):  # POSIX only; devhost's worker processes are spawned
    os.register_at_fork(after_in_child=_fresh_watcher_after_fork)


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
    call = _Call(model, datetime.now(UTC), watch.report)
    _watcher.add(time.monotonic() + watch.after, call)
    try:
        yield
    finally:
        call.end()
