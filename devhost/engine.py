"""The devhost Durable engine: instances, activities in a thread pool, timers.

It plays the part of the Durable extension + task hub for local runs. One
orchestration thread runs episodes (``devhost.replay``) over each instance's
waiting inbox events; activities run in a thread pool sized like host.json's
``maxConcurrentActivityFunctions``; due timers (``devhost.timers``) become
``TimerFired`` events. All state is in SQLite (``devhost.instances``), so a
killed process resumes every running instance on the next ``start()``.

The public methods are what the Durable client's RPC calls need (start,
status, raise event, terminate, purge, query); ``devhost.http`` exposes them.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import queue
import sqlite3
import threading
import time
import traceback
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

from devhost import history as h
from devhost.bindings import activity_input, activity_output
from devhost.instances import (
    TERMINAL,
    Instance,
    InstanceStore,
    WorkItem,
    add_work,
    continue_as_new,
    create_children,
    new_instance,
    push_inbox,
    save_instance,
    superseded,
)
from devhost.registry import Registry
from devhost.replay import Outcome, allocates_ids, run_episode
from devhost.timers import TimerQueue

log = logging.getLogger("devhost.engine")
MAX_EVENTS_PER_EPISODE = 64
InboxItem = tuple[int, str, dict[str, Any]]  # (seq, execution_id, event)


class InstanceExists(Exception):
    """An instance with this id is still running."""


class Engine:
    def __init__(self, registry: Registry, db_path: Path, activity_workers: int = 8) -> None:
        self.registry = registry
        self.store = InstanceStore(db_path)
        # Written by the orchestration, activity and timer threads: only through ``_count``.
        self.stats: Counter[str] = Counter()
        self._stats_lock = threading.Lock()
        self._pool = ThreadPoolExecutor(activity_workers, thread_name_prefix="activity")
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
        for thread in self._threads:
            thread.join(timeout=5)
        self.store.close()

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
        found = self.store.query(statuses, created_from, created_to)
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

    # -- orchestration thread ----------------------------------------------------

    def _signal(self, instance_id: str) -> None:
        with self._queued_lock:
            if instance_id in self._queued:
                return
            self._queued.add(instance_id)
        self._ready.put(instance_id)

    def _orchestration_loop(self) -> None:
        while not self._stopping.is_set():
            instance_id = self._ready.get()
            if instance_id is None:
                return
            with self._queued_lock:
                self._queued.discard(instance_id)
            try:
                more = self._process_one(instance_id)
            except Exception:
                log.exception("devhost: episode for %s crashed", instance_id)
                more = False
            if more:
                self._signal(instance_id)

    def _process_one(self, instance_id: str) -> bool:
        """Apply the waiting inbox events in one episode; returns whether more are waiting.

        Events are batched like the Durable extension does, so a fan-in of N
        completions costs one replay, not N; an event that makes the SDK take
        task ids (a retry) only ever opens a batch (``replay.allocates_ids``).
        """
        items = self.store.inbox(instance_id, MAX_EVENTS_PER_EPISODE)
        if not items:
            return False
        inst = self.store.get(instance_id)
        if self._drop_stale(items, inst):
            return True
        assert inst is not None  # no stale events: the instance exists and runs
        batch = _batch(items, inst)
        now = h.utcnow()
        outcome = self._replay(inst, [ev for _, _, ev in batch], now)
        with self.store.transaction() as conn:
            if superseded(conn, [seq for seq, _, _ in batch], inst):
                return True
            dispatch, children = self._apply(conn, inst, outcome, now)
        for work in dispatch:
            self._dispatch(work)
        for child in children:
            self._signal(child)
        self._notify_changed()
        return bool(self.store.inbox(instance_id, 1))

    def _drop_stale(self, items: list[InboxItem], inst: Instance | None) -> bool:
        """Delete events meant for a gone, finished or replaced execution; whether any were."""
        stale = [
            seq
            for seq, execution_id, _ in items
            if inst is None or inst.terminal or execution_id != inst.execution_id
        ]
        if stale:
            with self.store.transaction() as conn:
                conn.executemany("DELETE FROM inbox WHERE seq=?", [(seq,) for seq in stale])
        return bool(stale)

    def _replay(self, inst: Instance, events: list[dict[str, Any]], now: datetime) -> Outcome:
        """One SDK replay over the history plus ``events`` (outside any transaction)."""
        handler = self.registry.orchestrators.get(inst.name)
        inst.book.setdefault("instance", inst.id)
        outcome = run_episode(
            handler, inst.id, inst.parent_id, inst.input, inst.history, events, inst.book, now
        )
        self._count("episodes")
        return outcome

    def _apply(
        self, conn: sqlite3.Connection, inst: Instance, outcome: Outcome, now: datetime
    ) -> tuple[list[WorkItem], list[str]]:
        """Persist an episode's outcome; returns (work to dispatch, instances to signal)."""
        inst.history += outcome.new_history
        inst.status = "Running"
        inst.updated_at = h.iso(now)
        if outcome.custom_status is not None:
            inst.custom_status = json.dumps(outcome.custom_status)
        dispatch = self._schedule(conn, inst, outcome)
        registered = self.registry.orchestrators
        children = create_children(conn, inst, outcome.children, registered, now)
        if outcome.continued:
            continue_as_new(conn, inst, outcome.continue_as_new)
        elif outcome.done:
            self._complete_execution(conn, inst, outcome)
        else:
            save_instance(conn, inst)
        return dispatch, children

    def _schedule(
        self, conn: sqlite3.Connection, inst: Instance, outcome: Outcome
    ) -> list[WorkItem]:
        """Record the activities and timers the episode asked for; drop cancelled timers."""
        dispatch = [
            add_work(conn, inst, task_id, "activity", name, input_json)
            for task_id, name, input_json in outcome.activities
        ]
        for task_id, fire_at in outcome.timers:
            due = fire_at.timestamp()
            dispatch.append(add_work(conn, inst, task_id, "timer", None, h.iso(fire_at), due))
        for task_id in outcome.cancelled_timers:
            conn.execute(
                "DELETE FROM work WHERE instance_id=? AND execution_id=? AND task_id=? "
                "AND kind='timer'",
                (inst.id, inst.execution_id, task_id),
            )
        return dispatch

    def _complete_execution(
        self, conn: sqlite3.Connection, inst: Instance, outcome: Outcome
    ) -> None:
        """The orchestrator returned or raised: record the terminal event, once."""
        inst.status = "Failed" if outcome.error else "Completed"
        inst.output = json.dumps(outcome.error) if outcome.error else outcome.output_json
        kind = h.EventType.EXECUTION_FAILED if outcome.error else h.EventType.EXECUTION_COMPLETED
        inst.history.append(h.event(kind, Result=inst.output))
        self._finish(conn, inst)

    def _finish(self, conn, inst: Instance) -> None:
        """Persist a terminal instance, drop its pending work, tell the parent."""
        conn.execute("DELETE FROM work WHERE instance_id=?", (inst.id,))
        conn.execute("DELETE FROM inbox WHERE instance_id=?", (inst.id,))
        save_instance(conn, inst)
        if inst.parent_id is None or inst.parent_task_id is None:
            return
        parent = self.store.get(inst.parent_id)
        if parent is None or parent.terminal:
            return
        if inst.status == "Completed":
            note = h.sub_completed(inst.parent_task_id, inst.output)
        else:
            note = h.sub_failed(
                inst.parent_task_id, f"sub-orchestration {inst.id} {inst.status}", inst.output or ""
            )
        push_inbox(conn, parent.id, parent.execution_id, note)
        self._signal(parent.id)

    def _notify_changed(self) -> None:
        with self._changed:
            self._changed.notify_all()

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


def _batch(items: list[InboxItem], inst: Instance) -> list[InboxItem]:
    """The events one episode applies: all waiting, up to the next one that allocates ids."""
    batch = [items[0]]
    for item in items[1:]:
        if allocates_ids(item[2], inst.book):
            break
        batch.append(item)
    return batch
