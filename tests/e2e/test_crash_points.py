"""kill -9 at eleven chosen points: every session completes once, nothing lost or doubled.

``test_crash_resume`` kills the host once. Here ``python -m devhost serve``
(LLM reasoner, talking to the OpenAI-protocol fake that lives in this test
process) is SIGKILLed, whole process group, eleven times and restarted on the
same DATA_DIR and port. Two deep research sessions (each in its own chat) run
side by side. The kill points are not delays: the fake freezes each session at
a named LLM call (``tests.e2e.llm_gate``), and the test kills only once both
sessions are frozen there and the host's history (``devhost.sqlite3``,
table ``instances``) shows the expected activity in flight. So every kill lands
in a known phase, on an idle machine or a busy one. Every session must then
have:

- completed exactly once: it says ``completed``, its chat lists only it, and
  ``devhost.sqlite3`` holds one instance row (and one for its deep search
  child) with exactly one ExecutionCompleted;
- no duplicate and no lost findings: one ``items/item_*.json`` per researcher
  the history launched, each completed once and present in ``findings.json``;
- its caps respected although activities re-ran across kills (at-least-once).

The phase and in-flight activities of each kill are printed (``pytest -s``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from shared.core import names
from tests.e2e.crash_history import (
    assert_completed_once,
    assert_findings_exact,
    in_flight,
    phase_of,
    wait_ended,
)
from tests.e2e.llm_gate import FreezingLLM, Point
from tests.e2e.polling import TERMINAL
from tests.e2e.serve_process import ServeProcess, free_port
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.small_corpus import write_corpus

pytestmark = pytest.mark.e2e

FREEZE_S = 60.0  # the longest a session may take to reach its next point on a loaded machine
FINISH_S = 90.0
OPTIONS = {
    "num_agents": 2,
    "agent_max_steps": 3,
    "max_iterations": 4,
    "max_supervisor_calls": 2,
    "search_iterations": 1,
    "enable_clarifying_questions": False,
}
GIL = "How does the global interpreter lock affect Python threads?"
ASYNCIO = "When should I use asyncio instead of threads in Python?"
# Each list follows its session's flow, one point per kill; together they visit every
# phase of a run, and no kill finds the two sessions at the same point.
GIL_POINTS = [
    Point("deep search: planning queries", "Queries", names.PLAN_QUERIES),
    Point("deep search: reading a page", "PageSummaryDraft", names.SCRAPE_PAGE),
    Point("deep search: synthesis", "ChatReply", names.SYNTHESIZE),
    Point("planning: analysis", "QueryAnalysis", names.PLAN_RESEARCH),
    Point("planning: research plan", "ResearchPlan", names.PLAN_RESEARCH),
    Point("planning: agent profiles", "Profiles", names.SPAWN_AGENTS),
    Point("researcher: an agent step", "AgentAction", names.RUN_RESEARCHER),
    Point("researcher: writing a finding", "FindingDraft", names.RUN_RESEARCHER),
    Point("supervisor review", "SupervisorReview", names.SUPERVISOR_REVIEW),
    Point("report: writing", "ReportDraft", names.GENERATE_FINAL_REPORT),
]
ASYNCIO_POINTS = [
    Point("deep search: reading a page", "PageSummaryDraft", names.SCRAPE_PAGE),
    Point("deep search: synthesis", "ChatReply", names.SYNTHESIZE),
    Point("planning: research plan", "ResearchPlan", names.PLAN_RESEARCH),
    Point("planning: agent profiles", "Profiles", names.SPAWN_AGENTS),
    Point("researcher: an agent step", "AgentAction", names.RUN_RESEARCHER),
    Point("researcher: writing a finding", "FindingDraft", names.RUN_RESEARCHER),
    Point("supervisor review", "SupervisorReview", names.SUPERVISOR_REVIEW),
    Point("researcher: next todo after a review", "AgentAction", names.RUN_RESEARCHER),
    Point("report: analyst", "Analysis", names.ANALYZE_FINDINGS),
    Point("report: writing", "ReportDraft", names.GENERATE_FINAL_REPORT),
    Point("report: critic", "Critique", names.CRITIQUE_REPORT),
]
PLANS = {GIL: GIL_POINTS, ASYNCIO: ASYNCIO_POINTS}
KILLS = max(len(points) for points in PLANS.values())


@pytest.fixture
def llm() -> FreezingLLM:
    return FreezingLLM(PLANS)


@pytest.fixture
def fake_llm(llm: FreezingLLM) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(llm) as server:
        yield server
        llm.release_all()  # before stop: no handler thread stays blocked


@pytest.fixture
def hosts(tmp_path: Path, llm: FreezingLLM, fake_llm: FakeOpenAIServer):
    """Starts hosts on demand; whatever is still alive at teardown is killed by its PID."""
    started: list[ServeProcess] = []
    corpus = write_corpus(tmp_path / "corpus")
    port = free_port()

    def start(data_dir: Path) -> ServeProcess:
        host = ServeProcess(
            port,
            tmp_path / "devhost.log",
            data_dir=str(data_dir),
            reasoner="llm",
            openai_base_url=fake_llm.base_url,
            openai_api_key="test",
            llm_timeout_seconds="300",
            search_provider="local",
            local_corpus_path=str(corpus),
        )
        started.append(host)
        return host

    yield start
    llm.release_all()
    for host in started:
        if not host._log.closed:
            host.kill()


def test_sessions_survive_eleven_chosen_kills(tmp_path: Path, hosts, llm: FreezingLLM) -> None:
    data_dir = tmp_path / "data"
    db = data_dir / "devhost.sqlite3"
    began = time.monotonic()
    with httpx.Client(timeout=30) as http:
        host = hosts(data_dir)
        host.wait_ready(http)
        sessions = {q: _start(http, host.url, f"crash-chat-{i}", q) for i, q in enumerate(PLANS)}
        landed: set[str] = set()
        for kill in range(1, KILLS + 1):
            frozen = llm.wait_frozen(FREEZE_S)
            for query, point in frozen.items():
                running = in_flight(db, sessions[query])
                assert point.activity in running, f"{point.name}: in flight only {running}"
                phase = phase_of(db, sessions[query])
                print(f"kill {kill}: {sessions[query][:8]} {point.name} [{phase}] {running}")
                landed.add(point.name)
            host.kill()
            llm.advance()
            restart = time.monotonic()
            host = hosts(data_dir)
            host.wait_ready(http)
            print(f"kill {kill}: host back in {time.monotonic() - restart:.1f}s")
        views = {q: _wait_terminal(http, host.url, sid, FINISH_S) for q, sid in sessions.items()}
        for session_id in sessions.values():
            wait_ended(db, session_id, FINISH_S)
        listed = {
            q: http.get(f"{host.url}/api/chats/{views[q]['chat_id']}/sessions").json()
            for q in sessions
        }
        host.kill()
    print(f"{KILLS} kills in {len(landed)} phases in {time.monotonic() - began:.1f}s")

    assert landed == {p.name for points in PLANS.values() for p in points}, "a kill missed"
    assert llm.unattributed == [], "an LLM call quoted neither query"
    for query, session_id in sessions.items():
        assert views[query]["status"] == "completed", views[query]
        in_chat = listed[query]["sessions"] if isinstance(listed[query], dict) else listed[query]
        assert [s["session_id"] for s in in_chat] == [session_id]
        assert_completed_once(db, session_id)
        assert_findings_exact(db, data_dir / "memory" / session_id, OPTIONS)


def _start(http: httpx.Client, url: str, chat: str, query: str) -> str:
    body = {"query": query, "mode": "deep_research", "chat_id": chat, "options": OPTIONS}
    started = http.post(f"{url}/api/research", json=body)
    assert started.status_code == 202, started.text
    return started.json()["session_id"]


def _wait_terminal(http: httpx.Client, url: str, session_id: str, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        view = http.get(f"{url}/api/research/{session_id}").json()
        if view["status"] in TERMINAL:
            return view
        assert time.monotonic() < deadline, f"still {view['status']}/{view['phase']}"
        time.sleep(0.2)
