"""kill -9 at ten seeded points: every session completes once, nothing lost or doubled.

``test_crash_resume`` kills the host once. Here ``python -m devhost serve`` is
SIGKILLed (whole process group) ten times, each a seeded random delay after
the host answered again, and restarted on the same DATA_DIR and port. An
offline deep research on the small corpus takes well under a second of host
time, so two sessions would be over after the first kill or two: the test
keeps two sessions (each in its own chat) in flight, starting a new one
whenever one ends, and only counts a kill that hit a running session. Every
session must then have:

- completed exactly once: it says ``completed``, its chat lists only it, and
  ``devhost.sqlite3`` holds one instance row (and one for its deep search
  child) with exactly one ExecutionCompleted;
- no duplicate and no lost findings: one ``items/item_*.json`` per researcher
  the history launched, each completed once and present in ``findings.json``;
- its caps respected although activities re-ran across kills (at-least-once).

The seed, the delays and the phases each kill hit are printed (``pytest -s``).
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from devhost.history import EventType
from tests.e2e.polling import TERMINAL
from tests.e2e.serve_process import ServeProcess, free_port
from tests.fakes.small_corpus import write_corpus

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SEED = int(os.environ.get("CRASH_SEED", "20240610"))  # another seed explores other points
KILLS = 10
KILL_DELAY_S = (0.05, 0.8)
FINISH_S = 90.0
OPTIONS = {
    "num_agents": 2,
    "agent_max_steps": 3,
    "max_iterations": 4,
    "max_supervisor_calls": 2,
    "search_iterations": 1,
    "enable_clarifying_questions": False,
}
QUERIES = [
    "How does the global interpreter lock affect Python threads?",
    "When should I use asyncio instead of threads in Python?",
    "What changes for CPU-bound code in free-threaded Python 3.13?",
]
IN_FLIGHT = 2
MAX_ATTEMPTS = 3 * KILLS
CAPPED = ("num_agents", "agent_max_steps", "max_iterations", "max_supervisor_calls")


@pytest.fixture
def hosts(tmp_path: Path):
    """Starts hosts on demand; whatever is still alive at teardown is killed by its PID."""
    started: list[ServeProcess] = []
    corpus = write_corpus(tmp_path / "corpus")
    port = free_port()

    def start(data_dir: Path) -> ServeProcess:
        host = ServeProcess(
            port,
            tmp_path / "devhost.log",
            data_dir=str(data_dir),
            reasoner="offline",
            search_provider="local",
            local_corpus_path=str(corpus),
        )
        started.append(host)
        return host

    yield start
    for host in started:
        if not host._log.closed:
            host.kill()


@dataclass
class Crash:
    n: int
    delay: float
    phases: dict[str, str]  # chat -> phase of each session running when the host died


@dataclass
class History:
    """What the instance row in devhost.sqlite3 says happened, read after the last host died."""

    rows: int
    status: str
    events: list[dict] = field(default_factory=list)

    def count(self, kind: EventType) -> int:
        return sum(1 for e in self.events if e["EventType"] == kind)

    def start_input(self) -> dict:
        started = [e for e in self.events if e["EventType"] == EventType.EXECUTION_STARTED]
        assert len(started) == 1, "ExecutionStarted must be recorded exactly once"
        return json.loads(started[0]["Input"])

    def scheduled(self, activity: str) -> dict[int, dict]:
        """Task id -> input of every scheduled call of ``activity``."""
        return {
            e["EventId"]: json.loads(e["Input"])
            for e in self.events
            if e["EventType"] == EventType.TASK_SCHEDULED and e["Name"] == activity
        }

    def completed(self, activity: str) -> list[dict]:
        """Results of the calls of ``activity`` that completed, in history order."""
        mine = self.scheduled(activity)
        return [
            json.loads(e["Result"])
            for e in self.events
            if e["EventType"] == EventType.TASK_COMPLETED and e["TaskScheduledId"] in mine
        ]


def instance_ids(db: Path, prefix: str) -> list[str]:
    """Every instance the host created for a session (the id is the session id)."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT id FROM instances WHERE substr(id, 1, ?) = ? ORDER BY id", (len(prefix), prefix)
        ).fetchall()
    finally:
        conn.close()
    return [r[0] for r in rows]


def read_history(db: Path, instance_id: str) -> History:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT status, history FROM instances WHERE id=?", (instance_id,)
        ).fetchall()
    finally:
        conn.close()
    assert rows, f"no instance row for {instance_id}"
    status, history = rows[0]
    return History(len(rows), status, json.loads(history))


def test_sessions_survive_ten_seeded_kills(tmp_path: Path, hosts) -> None:
    rng = random.Random(SEED)
    data_dir = tmp_path / "data"
    began = time.monotonic()
    sessions: dict[str, str] = {}  # chat id -> session id
    crashes: list[Crash] = []
    print(f"\nseed {SEED}")
    with httpx.Client(timeout=30) as http:
        host = hosts(data_dir)
        host.wait_ready(http)
        for attempt in range(1, MAX_ATTEMPTS + 1):
            if len(crashes) == KILLS:
                break
            _top_up(http, host.url, sessions)
            delay = round(rng.uniform(*KILL_DELAY_S), 2)
            time.sleep(delay)  # the crash point, not an assertion
            phases = _phases(http, host.url, sessions)
            if not phases:
                print(f"attempt {attempt}: nothing in flight after {delay}s, no kill")
                continue
            host.kill()
            restart = time.monotonic()
            host = hosts(data_dir)
            host.wait_ready(http)
            crashes.append(Crash(len(crashes) + 1, delay, phases))
            back = time.monotonic() - restart
            print(f"kill {len(crashes)} after {delay}s in {phases}; back in {back:.1f}s")
        views = {
            chat: _wait_terminal(http, host.url, sid, FINISH_S) for chat, sid in sessions.items()
        }
        listed = {
            chat: http.get(f"{host.url}/api/chats/{chat}/sessions").json() for chat in sessions
        }
        host.kill()
    print(f"{len(crashes)} kills over {len(sessions)} sessions in {time.monotonic() - began:.1f}s")

    assert len(crashes) == KILLS, "too few kills landed while a session was running"
    db = data_dir / "devhost.sqlite3"
    for chat, session_id in sessions.items():
        assert views[chat]["status"] == "completed", views[chat]
        in_chat = listed[chat]["sessions"] if isinstance(listed[chat], dict) else listed[chat]
        assert [s["session_id"] for s in in_chat] == [session_id]
        _assert_completed_once(db, session_id)
        _assert_findings_exact(db, data_dir / "memory" / session_id)


def _top_up(http: httpx.Client, url: str, sessions: dict[str, str]) -> None:
    """Keep IN_FLIGHT sessions running, so every kill lands in the middle of work."""
    running = _phases(http, url, sessions)
    for _ in range(IN_FLIGHT - len(running)):
        chat = f"crash-chat-{len(sessions) + 1}"
        sessions[chat] = _start(http, url, chat, QUERIES[len(sessions) % len(QUERIES)])


def _assert_completed_once(db: Path, session_id: str) -> None:
    expected = [session_id, f"{session_id}:deep-search"]
    assert instance_ids(db, session_id) == expected, "an instance was created twice"
    for instance_id in expected:
        run = read_history(db, instance_id)
        assert (run.rows, run.status) == (1, "Completed"), instance_id
        assert run.count(EventType.EXECUTION_COMPLETED) == 1, f"{instance_id} completed twice"
        assert run.count(EventType.EXECUTION_FAILED) == 0
        assert run.count(EventType.EXECUTION_TERMINATED) == 0
    assert len(read_history(db, session_id).completed("complete_session")) == 1


def _assert_findings_exact(db: Path, folder: Path) -> None:
    """One item file per researcher run, each in findings.json; caps held across re-runs."""
    run = read_history(db, folder.name)
    scheduled = run.scheduled("run_researcher")
    done = [r for r in run.completed("run_researcher") if r["ok"]]
    todo_ids = {r["todo_id"] for r in done}
    item_names = {r["item_ref"].rsplit("/", 1)[-1] for r in done}
    items = {p.name for p in (folder / "items").glob("item_*.json")}
    assert done, "no researcher completed"
    assert len(done) == len(todo_ids) == len(item_names), f"a todo completed twice: {done}"
    assert items == item_names, "item files differ from the researcher runs in the history"
    launched = {f"{i['item'].rsplit('/', 1)[-1]}.json" for i in scheduled.values()}
    assert launched == item_names, "a researcher was launched but its finding never arrived"

    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    assert report["title"] and report["sections"], "report.json is not a report"
    compressed = json.loads((folder / "findings.json").read_text(encoding="utf-8"))
    assert todo_ids <= {f["todo_id"] for f in compressed["findings"]}, "a finding was lost"

    caps = run.start_input()["caps"]
    assert {k: caps[k] for k in CAPPED} == {k: OPTIONS[k] for k in CAPPED}
    assert len(launched) <= caps["max_iterations"]
    assert len(run.completed("supervisor_review")) <= caps["max_supervisor_calls"]
    assert len({i["profile"]["agent_id"] for i in scheduled.values()}) <= caps["num_agents"]


def _start(http: httpx.Client, url: str, chat: str, query: str) -> str:
    body = {"query": query, "mode": "deep_research", "chat_id": chat, "options": OPTIONS}
    started = http.post(f"{url}/api/research", json=body)
    assert started.status_code == 202, started.text
    return started.json()["session_id"]


def _phases(http: httpx.Client, url: str, sessions: dict[str, str]) -> dict[str, str]:
    """The phase of every session still running, by chat."""
    phases = {}
    for chat, sid in sessions.items():
        view = http.get(f"{url}/api/research/{sid}").json()
        if view["status"] not in TERMINAL:
            phases[chat] = view["phase"]
    return phases


def _wait_terminal(http: httpx.Client, url: str, session_id: str, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        view = http.get(f"{url}/api/research/{session_id}").json()
        if view["status"] in TERMINAL:
            return view
        assert time.monotonic() < deadline, f"still {view['status']}/{view['phase']}"
        time.sleep(0.2)
