"""The activity side of the devhost engine: a thread pool for activities, and timers.

Split from ``devhost.engine`` so the engine module reads as its public API.
Activities run in a thread pool sized like host.json's
``maxConcurrentActivityFunctions``, through the SDK's converters on both sides
(``devhost.bindings``); due timers (``devhost.timers``) become ``TimerFired``
events. Each result lands in the instance's inbox unless the work was dropped
meanwhile (instance finished, timer cancelled) or the engine is stopping.
``Engine`` mixes this class in; the attributes annotated below are set by
``Engine.__init__``.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import traceback
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from devhost import history as h
from devhost.bindings import activity_input, activity_output
from devhost.instances import InstanceStore, WorkItem, push_inbox
from devhost.registry import Registry
from devhost.timers import TimerQueue


class ActivityPool:
    """The activity and timer half of ``Engine`` (a mixin: state lives on the engine)."""

    registry: Registry
    store: InstanceStore
    stats: Counter[str]
    _stats_lock: threading.Lock
    _pool: ThreadPoolExecutor
    _timers: TimerQueue
    _stopping: threading.Event

    # -- activities and timers -----------------------------------------------------

    def _count(self, key: str) -> None:
        """``Counter`` updates are read-modify-write: unlocked, concurrent threads lose counts."""
        with self._stats_lock:
            self.stats[key] += 1

    def _dispatch(self, work: WorkItem) -> None:
        if self._stopping.is_set():
            return  # persisted as pending work: the next start() dispatches it
        if work.kind == "activity":
            self._count("activities_dispatched")
            self._pool.submit(self._run_activity, work)
        else:
            self._timers.schedule(work.due_at or 0.0, work.id)

    def _run_activity(self, work: WorkItem) -> None:
        """Run one activity as the worker does: the SDK's converters on both sides."""
        entry = self.registry.activities.get(work.name or "")
        try:
            if entry is None:
                raise LookupError(f"activity {work.name!r} is not registered")
            fn, param = entry
            result = fn(**{param: activity_input(work.input)})
            if inspect.isawaitable(result):
                result = asyncio.run(result)
            note = h.task_completed(work.task_id, activity_output(result))
            self._count(f"activity:{work.name}")
        except Exception as exc:
            reason = f"{type(exc).__name__}: {exc}"
            note = h.task_failed(work.task_id, reason, traceback.format_exc())
            self._count(f"activity_failed:{work.name}")
        self._complete(work, note)

    def _complete(self, work: WorkItem, note: dict[str, Any]) -> None:
        if self._stopping.is_set():
            return
        with self.store.transaction() as conn:
            gone = conn.execute("DELETE FROM work WHERE id=?", (work.id,)).rowcount == 0
            if not gone:
                push_inbox(conn, work.instance_id, work.execution_id, note)
        if not gone:
            self._signal(work.instance_id)

    def _timer_due(self, work_id: int) -> None:
        work = self.store.work_by_id(work_id)
        if work is not None:  # None: cancelled, or the instance finished meanwhile
            self._complete(work, h.timer_fired(work.task_id, work.input or ""))
