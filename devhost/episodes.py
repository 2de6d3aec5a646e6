"""The orchestration side of the devhost engine: one episode per batch of inbox events.

Split from ``devhost.engine`` so the engine module reads as its public API
(life cycle and the Durable client's operations) while this module holds the
loop the orchestration thread runs: take an instance's waiting events, replay
the orchestrator over them (``devhost.replay``), persist what it asked for
(activities, timers, sub-orchestrations, continue-as-new, completion) and
signal whoever must react. ``Engine`` mixes this class in; the attributes
annotated below are set by ``Engine.__init__``.
"""

from __future__ import annotations

import json
import logging
import queue
import sqlite3
import threading
from datetime import datetime
from typing import Any

from devhost import history as h
from devhost.instances import (
    Instance,
    InstanceStore,
    WorkItem,
    add_work,
    continue_as_new,
    create_children,
    push_inbox,
    save_instance,
    superseded,
)
from devhost.registry import Registry
from devhost.replay import Outcome, allocates_ids, run_episode

log = logging.getLogger("devhost.engine")
MAX_EVENTS_PER_EPISODE = 64
InboxItem = tuple[int, str, dict[str, Any]]  # (seq, execution_id, event)


class EpisodeRunner:
    """The orchestration thread's half of ``Engine`` (a mixin: state lives on the engine)."""

    registry: Registry
    store: InstanceStore
    _ready: queue.Queue[str | None]
    _queued: set[str]
    _queued_lock: threading.Lock
    _stopping: threading.Event
    _changed: threading.Condition

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


def _batch(items: list[InboxItem], inst: Instance) -> list[InboxItem]:
    """The events one episode applies: all waiting, up to the next one that allocates ids."""
    batch = [items[0]]
    for item in items[1:]:
        if allocates_ids(item[2], inst.book):
            break
        batch.append(item)
    return batch
