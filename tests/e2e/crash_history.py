"""Reading devhost's durable history (``devhost.sqlite3``) to judge a crashed run.

The crash tests look at what the host recorded, not only at what the API says:
which activity is in flight when they kill, and afterwards whether every
instance completed once and every researcher's finding arrived exactly once.
Reads open their own connection (WAL lets them run beside the host).
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from devhost.history import EventType
from shared.core import names

# The caps the crash tests set, by request option -> field of the stored Caps.
CAPPED = {
    "num_agents": "max_agents",
    "agent_max_steps": "agent_max_steps",
    "max_iterations": "max_iterations",
    "max_supervisor_calls": "max_supervisor_calls",
}


@dataclass
class History:
    """What one instance row says happened."""

    rows: int
    status: str
    custom_status: dict
    events: list[dict] = field(default_factory=list)

    def count(self, kind: EventType) -> int:
        return sum(1 for e in self.events if e["EventType"] == kind)

    def start_input(self) -> dict:
        started = [e for e in self.events if e["EventType"] == EventType.EXECUTION_STARTED]
        assert len(started) == 1, "ExecutionStarted must be recorded exactly once"
        return json.loads(started[0]["Input"])

    def scheduled(self, activity: str | None = None) -> dict[int, dict]:
        """Task id -> event of every scheduled call (of ``activity``, if given)."""
        return {
            e["EventId"]: e
            for e in self.events
            if e["EventType"] == EventType.TASK_SCHEDULED and activity in (None, e["Name"])
        }

    def completed(self, activity: str) -> list[dict]:
        """Results of the calls of ``activity`` that completed, in history order."""
        mine = self.scheduled(activity)
        return [
            json.loads(e["Result"])
            for e in self.events
            if e["EventType"] == EventType.TASK_COMPLETED and e["TaskScheduledId"] in mine
        ]

    def in_flight(self) -> list[str]:
        """Names of the activities scheduled and not yet answered (completed or failed)."""
        answered = {
            e["TaskScheduledId"]
            for e in self.events
            if e["EventType"] in (EventType.TASK_COMPLETED, EventType.TASK_FAILED)
        }
        return [e["Name"] for i, e in self.scheduled().items() if i not in answered]


def _rows(db: Path, sql: str, args: tuple) -> list[tuple]:
    conn = sqlite3.connect(db, timeout=30)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def instance_ids(db: Path, prefix: str) -> list[str]:
    """Every instance the host created for a session (the id is the session id)."""
    sql = "SELECT id FROM instances WHERE substr(id, 1, ?) = ? ORDER BY id"
    return [r[0] for r in _rows(db, sql, (len(prefix), prefix))]


def read_history(db: Path, instance_id: str) -> History:
    sql = "SELECT status, custom_status, history FROM instances WHERE id=?"
    rows = _rows(db, sql, (instance_id,))
    assert rows, f"no instance row for {instance_id}"
    status, custom, history = rows[0]
    return History(len(rows), status, json.loads(custom or "{}"), json.loads(history))


def in_flight(db: Path, session_id: str) -> list[str]:
    """Activities in flight for a session and its deep search child, sorted."""
    return sorted(a for i in instance_ids(db, session_id) for a in read_history(db, i).in_flight())


def phase_of(db: Path, session_id: str) -> str:
    """The phase the orchestrator last published (custom status), as the API shows it."""
    return str(read_history(db, session_id).custom_status.get("phase", "?"))


def wait_ended(db: Path, session_id: str, timeout: float = 60) -> None:
    """Until the session's orchestrations recorded their end: a session reads completed as
    soon as complete_session ran, a moment before the orchestrator's last episode (call it
    before the host is killed, and before ``assert_completed_once``)."""
    deadline = time.monotonic() + timeout
    for instance_id in _session_instances(session_id):
        while (status := read_history(db, instance_id).status) != "Completed":
            assert time.monotonic() < deadline, f"{instance_id} still {status}"
            time.sleep(0.1)


def _session_instances(session_id: str) -> list[str]:
    return [session_id, names.session_instance_id(session_id, names.DEEP_SEARCH_ROLE)]


def assert_completed_once(db: Path, session_id: str) -> None:
    expected = _session_instances(session_id)
    assert instance_ids(db, session_id) == expected, "an instance was created twice"
    for instance_id in expected:
        run = read_history(db, instance_id)
        assert (run.rows, run.status) == (1, "Completed"), instance_id
        assert run.count(EventType.EXECUTION_COMPLETED) == 1, f"{instance_id} completed twice"
        assert run.count(EventType.EXECUTION_FAILED) == 0
        assert run.count(EventType.EXECUTION_TERMINATED) == 0
    assert len(read_history(db, session_id).completed("complete_session")) == 1


def assert_findings_exact(db: Path, folder: Path, options: dict) -> None:
    """One item file per researcher run, each in findings.json; caps held across re-runs."""
    run = read_history(db, folder.name)
    launched_inputs = [json.loads(e["Input"]) for e in run.scheduled("run_researcher").values()]
    done = [r for r in run.completed("run_researcher") if r["ok"]]
    todo_ids = {r["todo_id"] for r in done}
    item_names = {r["item_ref"].rsplit("/", 1)[-1] for r in done}
    items = {p.name for p in (folder / "items").glob("item_*.json")}
    assert done, "no researcher completed"
    assert len(done) == len(todo_ids) == len(item_names), f"a todo completed twice: {done}"
    assert items == item_names, "item files differ from the researcher runs in the history"
    launched = {f"{i['item'].rsplit('/', 1)[-1]}.json" for i in launched_inputs}
    assert launched == item_names, "a researcher was launched but its finding never arrived"

    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    assert report["title"] and report["sections"], "report.json is not a report"
    compressed = json.loads((folder / "findings.json").read_text(encoding="utf-8"))
    assert todo_ids <= {f["todo_id"] for f in compressed["findings"]}, "a finding was lost"

    caps = run.start_input()["caps"]
    assert {o: caps[c] for o, c in CAPPED.items()} == {o: options[o] for o in CAPPED}
    assert len(launched) <= caps["max_iterations"]
    assert len(run.completed("supervisor_review")) <= caps["max_supervisor_calls"]
    assert len({i["profile"]["agent_id"] for i in launched_inputs}) <= caps["max_agents"]
