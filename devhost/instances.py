"""SQLite persistence for devhost: instances with their history, an inbox, pending work.

Every state change of an instance happens in one transaction together with the
inbox row it consumed and the work it scheduled, so a ``kill -9`` at any point
leaves a state from which ``Engine.start`` can resume: undelivered inbox events
are replayed, activities that were scheduled but not completed run again
(at-least-once, as in Azure), timers are re-armed.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from collections.abc import Container, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from devhost import history as h
from devhost.instances_schema import ALL_COLUMNS, SUMMARY_COLUMNS, create_or_migrate
from devhost.replay import new_book

TERMINAL = ("Completed", "Failed", "Terminated")


@dataclass
class Instance:
    id: str
    name: str
    execution_id: str
    status: str
    input: str | None
    output: str | None
    custom_status: str | None
    parent_id: str | None
    parent_task_id: int | None
    created_at: str
    updated_at: str
    history: list[dict[str, Any]]
    book: dict[str, Any]

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL


@dataclass
class WorkItem:
    id: int
    instance_id: str
    execution_id: str
    task_id: int
    kind: str  # "activity" | "timer"
    name: str | None
    input: str | None
    due_at: float | None


class InstanceStore:
    """One SQLite file; a single connection guarded by a lock (operations are short)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA busy_timeout=5000")
        create_or_migrate(self._conn)
        self._lock = threading.RLock()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    # -- reads -----------------------------------------------------------------

    def get(self, instance_id: str) -> Instance | None:
        with self._lock:
            row = self._conn.execute(
                f"SELECT {ALL_COLUMNS} FROM instances WHERE id=?", (instance_id,)
            ).fetchone()
        return _instance(row) if row else None

    def summary(self, instance_id: str) -> Instance | None:
        """The instance without its history and book: what a status poll needs, cheaply.

        Its cost does not depend on the history's length: the history is neither
        decoded nor read (``devhost.instances_schema``); ``history`` and ``book``
        come back empty.
        """
        with self._lock:
            row = self._conn.execute(
                f"SELECT {SUMMARY_COLUMNS}, '[]', '{{}}' FROM instances WHERE id=?",
                (instance_id,),
            ).fetchone()
        return _instance(row) if row else None

    def state(self, instance_id: str) -> tuple[str, str] | None:
        """(status, execution_id) without decoding the history: enough for the hot checks."""
        with self._lock:
            row = self._conn.execute(
                "SELECT status, execution_id FROM instances WHERE id=?", (instance_id,)
            ).fetchone()
        return (row[0], row[1]) if row else None

    def query(
        self,
        statuses: list[str] | None = None,
        created_from: str | None = None,
        created_to: str | None = None,
        prefix: str | None = None,
        history: bool = True,
    ) -> list[Instance]:
        """Instances matching every filter given, oldest first; without ``history``,
        their summaries (as :meth:`summary`), whatever their histories' length."""
        columns = ALL_COLUMNS if history else f"{SUMMARY_COLUMNS}, '[]', '{{}}'"
        sql, args = f"SELECT {columns} FROM instances WHERE 1=1", []
        if statuses:
            sql += f" AND status IN ({','.join('?' * len(statuses))})"
            args += statuses
        if created_from:
            sql += " AND created_at >= ?"
            args.append(created_from)
        if created_to:
            sql += " AND created_at <= ?"
            args.append(created_to)
        if prefix:
            sql += " AND id LIKE ? ESCAPE '\\'"
            args.append(prefix.replace("%", "\\%").replace("_", "\\_") + "%")
        with self._lock:
            rows = self._conn.execute(sql + " ORDER BY created_at", args).fetchall()
        return [_instance(r) for r in rows]

    def inbox(self, instance_id: str, limit: int) -> list[tuple[int, str, dict[str, Any]]]:
        """The oldest ``limit`` undelivered events of an instance, in arrival order."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT seq, execution_id, event FROM inbox WHERE instance_id=? "
                "ORDER BY seq LIMIT ?",
                (instance_id, limit),
            ).fetchall()
        return [(seq, execution_id, json.loads(ev)) for seq, execution_id, ev in rows]

    def instances_with_inbox(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._conn.execute("SELECT DISTINCT instance_id FROM inbox")]

    def pending_work(self) -> list[WorkItem]:
        with self._lock:
            rows = self._conn.execute("SELECT * FROM work ORDER BY id").fetchall()
        return [WorkItem(*r) for r in rows]

    def work_by_id(self, work_id: int) -> WorkItem | None:
        with self._lock:
            row = self._conn.execute("SELECT * FROM work WHERE id=?", (work_id,)).fetchone()
        return WorkItem(*row) if row else None


def _instance(row: tuple) -> Instance:
    *head, history, book = row
    return Instance(*head, json.loads(history), json.loads(book))


def new_instance(
    instance_id: str,
    name: str,
    input_json: str | None,
    parent_id: str | None,
    parent_task_id: int | None,
    now: str,
) -> Instance:
    """A Pending instance with a fresh execution id and empty history."""
    book = new_book()
    book["instance"] = instance_id
    return Instance(
        instance_id,
        name,
        uuid.uuid4().hex,
        "Pending",
        input_json,
        None,
        None,
        parent_id,
        parent_task_id,
        now,
        now,
        [],
        book,
    )


def save_instance(conn: sqlite3.Connection, inst: Instance) -> None:
    conn.execute(
        f"INSERT OR REPLACE INTO instances ({ALL_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            inst.id,
            inst.name,
            inst.execution_id,
            inst.status,
            inst.input,
            inst.output,
            inst.custom_status,
            inst.parent_id,
            inst.parent_task_id,
            inst.created_at,
            inst.updated_at,
            json.dumps(inst.history),
            json.dumps(inst.book),
        ),
    )


def push_inbox(conn: sqlite3.Connection, instance_id: str, execution_id: str, event: dict) -> None:
    conn.execute(
        "INSERT INTO inbox(instance_id, execution_id, event) VALUES (?,?,?)",
        (instance_id, execution_id, json.dumps(event)),
    )


def add_work(
    conn: sqlite3.Connection,
    inst: Instance,
    task_id: int,
    kind: str,
    name: str | None = None,
    input_: str | None = None,
    due_at: float | None = None,
) -> WorkItem:
    """Record pending work in the episode's transaction; returns it for dispatch."""
    cur = conn.execute(
        "INSERT INTO work(instance_id, execution_id, task_id, kind, name, input, due_at) "
        "VALUES (?,?,?,?,?,?,?)",
        (inst.id, inst.execution_id, task_id, kind, name, input_, due_at),
    )
    return WorkItem(
        int(cur.lastrowid), inst.id, inst.execution_id, task_id, kind, name, input_, due_at
    )


def superseded(conn: sqlite3.Connection, seqs: list[int], inst: Instance) -> bool:
    """Consume an episode's inbox rows; whether a client call changed the instance meanwhile.

    The episode runs outside the transaction; a terminate, purge or restart
    with the same id may have happened meanwhile. Its outcome must then be
    dropped, or saving it would resurrect the old execution.
    """
    marks = ",".join("?" * len(seqs))
    deleted = conn.execute(f"DELETE FROM inbox WHERE seq IN ({marks})", seqs).rowcount
    current = conn.execute(
        "SELECT status, execution_id FROM instances WHERE id=?", (inst.id,)
    ).fetchone()
    return not (
        deleted == len(seqs)
        and current is not None
        and current[0] not in TERMINAL
        and current[1] == inst.execution_id
    )


def create_children(
    conn: sqlite3.Connection,
    parent: Instance,
    children: list[tuple[int, str, str, str | None]],
    registered: Container[str],
    now: datetime,
) -> list[str]:
    """Create the sub-orchestrations an episode started; returns the ids to signal.

    A child whose orchestrator is not registered fails at once: the parent
    gets a ``SubOrchestrationInstanceFailed`` (and is signalled instead).
    """
    created = []
    for task_id, name, child_id, input_json in children:
        if name not in registered:
            missing = h.sub_failed(task_id, f"orchestrator {name!r} is not registered", "")
            push_inbox(conn, parent.id, parent.execution_id, missing)
            created.append(parent.id)
            continue
        child = new_instance(child_id, name, input_json, parent.id, task_id, h.iso(now))
        save_instance(conn, child)
        conn.execute("DELETE FROM inbox WHERE instance_id=?", (child_id,))
        started = h.execution_started(name, input_json, parent.id)
        push_inbox(conn, child.id, child.execution_id, started)
        created.append(child_id)
    return created


def continue_as_new(conn: sqlite3.Connection, inst: Instance, input_json: str | None) -> None:
    """Restart ``inst`` as a new execution with ``input_json``: fresh history, no pending work."""
    conn.execute("DELETE FROM work WHERE instance_id=?", (inst.id,))
    inst.execution_id = uuid.uuid4().hex
    inst.input, inst.history, inst.book = input_json, [], new_book()
    inst.custom_status = None
    save_instance(conn, inst)
    started = h.execution_started(inst.name, input_json, inst.parent_id)
    push_inbox(conn, inst.id, inst.execution_id, started)
