"""A killed worker process costs its activities a second delivery, nothing else.

``python -m devhost serve`` runs with ``FUNCTIONS_WORKER_PROCESS_COUNT=2``: activities
run in two worker processes while the host process keeps HTTP, orchestrations
and history. A deep research starts; the OpenAI-protocol fake holds the first
researcher step (``tests.e2e.llm_gate``), so ``run_researcher`` is in flight in a
worker process when every worker process gets SIGKILL. The host itself stays up:
it starts fresh worker processes and delivers the lost activities again, and
the session completes exactly once (one report, one finding per researcher run,
no failed task in the history).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from devhost.history import EventType
from shared.core import names
from tests.e2e.crash_history import (
    assert_completed_once,
    assert_findings_exact,
    in_flight,
    read_history,
    wait_ended,
)
from tests.e2e.llm_gate import FreezingLLM, Point
from tests.e2e.serve_process import ServeProcess, free_port
from tests.e2e.test_crash_resume import warm_corpus
from tests.fakes.openai_server import FakeOpenAIServer

pytestmark = pytest.mark.e2e

FINISH_S = 120.0
FREEZE_S = 90.0
QUERY = "How do Python context managers and the with statement work?"
OPTIONS = {
    "num_agents": 2,
    "agent_max_steps": 3,
    "max_iterations": 4,
    "max_supervisor_calls": 2,
    "enable_clarifying_questions": False,
}
MID_RESEARCH = Point("researcher: an agent step", "AgentAction", names.RUN_RESEARCHER)


def worker_pids(host_pid: int) -> set[int]:
    """The host's worker processes: its children started by ``multiprocessing`` spawn."""
    found = set()
    for task in Path(f"/proc/{host_pid}/task").iterdir():
        for pid in (task / "children").read_text().split():
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            if b"multiprocessing.spawn" in cmdline and b"resource_tracker" not in cmdline:
                found.add(int(pid))
    return found


@pytest.fixture
def llm() -> FreezingLLM:
    return FreezingLLM({QUERY: [MID_RESEARCH]})


@pytest.fixture
def host(tmp_path: Path, llm: FreezingLLM) -> Iterator[tuple[ServeProcess, Path]]:
    data_dir = tmp_path / "data"
    warm_corpus(data_dir)
    with FakeOpenAIServer(llm) as fake:
        process = ServeProcess(
            free_port(),
            tmp_path / "devhost.log",
            data_dir=str(data_dir),
            reasoner="llm",
            openai_base_url=fake.base_url,
            openai_api_key="test",
            llm_timeout_seconds="300",
            search_provider="local",
            functions_worker_process_count="2",
        )
        try:
            yield process, data_dir
        finally:
            llm.release_all()
            process.kill()


def test_a_killed_worker_process_has_its_activity_delivered_again(
    host: tuple[ServeProcess, Path], llm: FreezingLLM
) -> None:
    serve, data_dir = host
    db = data_dir / "devhost.sqlite3"
    with httpx.Client(timeout=30) as http:
        serve.wait_ready(http)
        killed = worker_pids(serve.proc.pid)
        assert len(killed) == 2, killed
        started = http.post(
            f"{serve.url}/api/research",
            json={"query": QUERY, "mode": "deep_research", "options": OPTIONS},
        )
        assert started.status_code == 202, started.text
        session_id = started.json()["session_id"]

        llm.wait_frozen(FREEZE_S)
        assert names.RUN_RESEARCHER in in_flight(db, session_id)
        for pid in killed:
            os.kill(pid, signal.SIGKILL)
        llm.advance()
        view = _wait_completed(http, serve.url, session_id)
        wait_ended(db, session_id)

        assert serve.proc.poll() is None, "the host process itself must survive"
        replacements = worker_pids(serve.proc.pid)
    assert view["status"] == "completed", view
    assert len(replacements) == 2 and not replacements & killed, (killed, replacements)
    assert_completed_once(db, session_id)
    assert_findings_exact(db, data_dir / "memory" / session_id, OPTIONS)
    history = read_history(db, session_id)
    assert history.count(EventType.TASK_FAILED) == 0, "a lost activity was reported as failed"
    log = (data_dir.parent / "devhost.log").read_text(encoding="utf-8", errors="replace")
    assert "redelivering" in log, "the lost activities were never delivered again"


def _wait_completed(http: httpx.Client, url: str, session_id: str) -> dict:
    deadline = time.monotonic() + FINISH_S
    while True:
        view = http.get(f"{url}/api/research/{session_id}").json()
        if view["status"] in ("completed", "failed", "cancelled"):
            return view
        assert time.monotonic() < deadline, f"still {view['status']}/{view['phase']}"
        time.sleep(0.2)
