"""The devhost Durable engine: instances, activities in a thread pool or worker processes, timers.

It plays the part of the Durable extension + task hub for local runs. One
orchestration thread runs episodes (``devhost.episodes``, over
``devhost.replay``) on each instance's waiting inbox events; activities run in
a thread pool sized like host.json's ``maxConcurrentActivityFunctions`` (split
over ``worker_processes`` processes when there are several) and due
timers (``devhost.timers``) become ``TimerFired`` events
(``devhost.activity_pool``). All state is in SQLite (``devhost.instances``), so a
killed process resumes every running instance on the next ``start()``.

The public methods are what the Durable client's RPC calls need (start,
status, raise event, terminate, purge, query); ``devhost.http`` exposes them.
"""

from __future__ import annotations

import json
import queue
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from devhost import history as h
from devhost.activity_pool import ActivityPool
from devhost.episodes import EpisodeRunner
from devhost.instances import (
    TERMINAL,
    Instance,
    InstanceStore,
    new_instance,
    push_inbox,
    save_instance,
)
from devhost.registry import Registry
from devhost.timers import TimerQueue
from devhost.worker_processes import DEFAULT_APP, WorkerProcesses
from shared.core.config import Settings


class InstanceExists(Exception):
    """An instance with this id is still running."""


class Engine(EpisodeRunner, ActivityPool):
    def __init__(
        self,
        registry: Registry,
        db_path: Path,
        activity_workers: int = 8,
        worker_processes: int = 1,
        settings: Settings | None = None,
        app_ref: str = DEFAULT_APP,
    ) -> None:
        """``worker_processes`` > 1: activities run in that many processes, each with a share
        of ``activity_workers`` threads, on the app ``app_ref`` built with ``settings``."""
        self.registry = registry
        self.store = InstanceStore(db_path)
        # Written by the orchestration, activity and timer threads: only through ``_count``.
        self.stats: Counter[str] = Counter()
        self._stats_lock = threading.Lock()
        self._pool = ThreadPoolExecutor(activity_workers, thread_name_prefix="activity")
        self._workers: WorkerProcesses | None = None
        self._losses: Counter[int] = Counter()
        if worker_processes > 1:
            threads = -(-activity_workers // worker_processes)
            self._workers = WorkerProcesses(
                worker_processes,
                threads,
                settings or Settings(),
                app_ref,
                self._activity_done,
                self._redeliver,
            )
        self._ready: queue.Queue[str | None] = queue.Queue()
        self._queued: set[str] = set()
        self._queued_lock = threading.Lock()
        self._timers = TimerQueue(self._timer_due)
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._changed = threading.Condition()

    # -- life cycle ------------------------------------------------------------

    def start(self) -> None:
        """Start the threads and resume whatever a previous process left running."""
        self._threads = [
            threading.Thread(target=self._orchestration_loop, name="orchestrator", daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        if self._workers is not None:
            self._workers.start()
        self._timers.start()
        for item in self.store.pending_work():
            self._dispatch(item)
        for instance_id in self.store.instances_with_inbox():
            self._signal(instance_id)

    @property
    def stopping(self) -> bool:
        """True once ``stop()`` began: results arriving from now on are dropped (as in a crash)."""
        return self._stopping.is_set()

    def stop(self) -> None:
        self._stopping.set()
        self._ready.put(None)
        self._timers.stop()
        self._pool.shutdown(wait=True, cancel_futures=True)
        if self._workers is not None:
            self._workers.stop()
        for thread in self._threads:
            thread.join(timeout=5)
        self.store.close()

    def worker_pids(self) -> list[int]:
        """The worker processes running activities (none: they run in this process)."""
        return self._workers.pids() if self._workers is not None else []

    def wait_workers_ready(self, timeout: float) -> bool:
        """Whether the worker processes (if any) are warm within ``timeout`` (benchmarks)."""
        return self._workers is None or self._workers.wait_ready(timeout)

    # -- client operations -----------------------------------------------------

    def start_instance(self, name: str, instance_id: str | None, input_json: str | None) -> str:
        if name not in self.registry.orchestrators:
            raise KeyError(name)
        instance_id = instance_id or uuid.uuid4().hex
        now = h.iso(h.utcnow())
        with self.store.transaction() as conn:
            existing = self.store.get(instance_id)
            if existing and not existing.terminal:
                raise InstanceExists(instance_id)
            conn.execute("DELETE FROM inbox WHERE instance_id=?", (instance_id,))
            inst = new_instance(instance_id, name, input_json, None, None, now)
            save_instance(conn, inst)
            started = h.execution_started(name, input_json, None)
            push_inbox(conn, inst.id, inst.execution_id, started)
        self._count("instances_started")
        self._signal(instance_id)
        return instance_id

    def raise_event(self, instance_id: str, name: str, input_json: str | None) -> str:
        """Returns ``ok``, ``not_found`` or ``gone``."""
        with self.store.transaction() as conn:
            inst = self.store.get(instance_id)
            if inst is None:
                return "not_found"
            if inst.terminal:
                return "gone"
            push_inbox(conn, inst.id, inst.execution_id, h.event_raised(name, input_json))
        self._signal(instance_id)
        return "ok"

    def terminate(self, instance_id: str, reason: str) -> str:
        with self.store.transaction() as conn:
            inst = self.store.get(instance_id)
            if inst is None:
                return "not_found"
            if inst.terminal:
                return "gone"
            inst.status, inst.output = "Terminated", json.dumps(reason)
            inst.history.append(h.event(h.EventType.EXECUTION_TERMINATED, Input=reason))
            self._finish(conn, inst)
        self._notify_changed()
        return "ok"

    def purge(self, instance_id: str) -> int:
        with self.store.transaction() as conn:
            inst = self.store.get(instance_id)
            if inst is None or not inst.terminal:
                return 0
            for table in ("inbox", "work"):
                conn.execute(f"DELETE FROM {table} WHERE instance_id=?", (instance_id,))
            conn.execute("DELETE FROM instances WHERE id=?", (instance_id,))
        return 1

    def purge_by(
        self, statuses: list[str] | None, created_from: str | None, created_to: str | None
    ) -> int:
        """Purge finished instances in a creation window; running ones are never purged."""
        found = self.store.query(statuses, created_from, created_to, history=False)
        return sum(self.purge(inst.id) for inst in found if inst.terminal)

    def get(self, instance_id: str) -> Instance | None:
        return self.store.get(instance_id)

    def wait(
        self, instance_id: str, timeout: float, statuses: tuple[str, ...] = ()
    ) -> Instance | None:
        """Block until the instance is terminal (or in ``statuses``) or ``timeout`` passes."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                state = self.store.state(instance_id)  # every episode wakes us: stay cheap
                if state and (state[0] in TERMINAL or state[0] in statuses):
                    return self.store.get(instance_id)
                left = deadline - time.monotonic()
                if left <= 0:
                    return self.store.get(instance_id)
                self._changed.wait(min(left, 0.5))
