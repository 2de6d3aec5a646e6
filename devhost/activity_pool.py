"""The activity side of the devhost engine: where activities run, and timers.

Split from ``devhost.engine`` so the engine module reads as its public API.
Activities run in a thread pool sized like host.json's
``maxConcurrentActivityFunctions``, or, with ``FUNCTIONS_WORKER_PROCESS_COUNT`` > 1,
in worker processes (``devhost.worker_processes``); either way through the
SDK's converters on both sides (``devhost.activity_call``); due timers
(``devhost.timers``) become ``TimerFired`` events. Each result lands in the
instance's inbox unless the work was dropped meanwhile (instance finished,
timer cancelled) or the engine is stopping. ``Engine`` mixes this class in;
the attributes annotated below are set by ``Engine.__init__``.
"""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from devhost import history as h
from devhost.activity_call import ActivityOutcome, call_activity
from devhost.instances import InstanceStore, WorkItem, push_inbox
from devhost.registry import Registry
from devhost.timers import TimerQueue
from devhost.worker_processes import WorkerProcesses

# Worker processes that may die running one activity before it fails instead of running
# again: an activity that kills its process every time (a native crash, os._exit, memory)
# would otherwise be redelivered forever. Its orchestrator sees a TaskFailed, as for any
# failure, and its retry policy (if any) decides.
MAX_PROCESS_LOSSES = 3


class ActivityPool:
    """The activity and timer half of ``Engine`` (a mixin: state lives on the engine)."""

    registry: Registry
    store: InstanceStore
    stats: Counter[str]
    _stats_lock: threading.Lock
    _pool: ThreadPoolExecutor
    _workers: WorkerProcesses | None
    _losses: Counter[int]  # work id -> worker processes lost running it
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
            if self._workers is not None:
                self._workers.submit(work)
            else:
                self._pool.submit(self._run_activity, work)
        else:
            self._timers.schedule(work.due_at or 0.0, work.id)

    def _run_activity(self, work: WorkItem) -> None:
        self._activity_done(work, call_activity(self.registry, work.name, work.input))

    def _activity_done(self, work: WorkItem, outcome: ActivityOutcome) -> None:
        with self._stats_lock:
            self._losses.pop(work.id, None)
        if outcome.failed:
            note = h.task_failed(work.task_id, outcome.reason or "", outcome.details)
            self._count(f"activity_failed:{work.name}")
        else:
            note = h.task_completed(work.task_id, outcome.output or "null")
            self._count(f"activity:{work.name}")
        self._complete(work, note)

    def _redeliver(self, work: WorkItem) -> None:
        """A worker process died holding ``work``: run it again unless it was dropped since,
        or fail it once ``MAX_PROCESS_LOSSES`` processes died running it."""
        if self._stopping.is_set() or self.store.work_by_id(work.id) is None:
            return
        with self._stats_lock:
            self._losses[work.id] += 1
            lost = self._losses[work.id]
        if lost >= MAX_PROCESS_LOSSES:
            reason = f"WorkerProcessLost: {lost} worker processes ended while running it"
            self._activity_done(work, ActivityOutcome(reason=reason))
            return
        self._count("activities_redelivered")
        self._dispatch(work)

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
