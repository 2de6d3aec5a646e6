"""Killing devhost with SIGKILL mid-research loses nothing and duplicates nothing.

``python -m devhost serve`` runs as a real subprocess in its own process group,
with the LLM reasoner talking to the OpenAI-protocol fake in this process. A
deep research starts over HTTP; the fake holds the first researcher step
(``tests.e2e.llm_gate``), so the run is certainly mid-research, with
``run_researcher`` in flight in the host's history, when the whole group gets
SIGKILL. A second host on the same DATA_DIR and port must finish the same
session exactly once: one report, one item file per researcher run.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from shared.adapters.search.builtin_corpus import BuiltinCorpus
from shared.core import names
from shared.core.config import Settings
from tests.conftest import CORPUS_CACHE
from tests.e2e.crash_history import in_flight
from tests.e2e.llm_gate import FreezingLLM, Point
from tests.e2e.polling import TERMINAL
from tests.e2e.serve_process import ServeProcess, free_port
from tests.fakes.openai_server import FakeOpenAIServer

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
FINISH_S = 90.0
FREEZE_S = 60.0
QUERY = "How do Python generators and the yield statement work?"
MID_RESEARCH = Point("researcher: an agent step", "AgentAction", names.RUN_RESEARCHER)


def warm_corpus(data_dir: Path) -> None:
    """Copy the shared corpus index into DATA_DIR so the host need not rebuild it."""
    cache_settings = Settings(data_dir=CORPUS_CACHE, reasoner="offline", search_provider="local")
    BuiltinCorpus(cache_settings).search("python generators", 1)
    shutil.copytree(CORPUS_CACHE / "corpus-cache", data_dir / "corpus-cache", dirs_exist_ok=True)


@pytest.fixture
def llm() -> FreezingLLM:
    return FreezingLLM({QUERY: [MID_RESEARCH]})


@pytest.fixture
def fake_llm(llm: FreezingLLM) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(llm) as server:
        yield server
        llm.release_all()


@pytest.fixture
def serve(tmp_path: Path, llm: FreezingLLM, fake_llm: FakeOpenAIServer):
    started: list[ServeProcess] = []

    def start(data_dir: Path, port: int) -> ServeProcess:
        process = ServeProcess(
            port,
            tmp_path / "devhost.log",
            data_dir=str(data_dir),
            reasoner="llm",
            openai_base_url=fake_llm.base_url,
            openai_api_key="test",
            llm_timeout_seconds="300",
            search_provider="local",
        )
        started.append(process)
        return process

    yield start
    llm.release_all()
    for process in started:
        process.kill()


def test_a_killed_host_resumes_the_research_and_completes_it_once(
    tmp_path: Path, serve, llm: FreezingLLM
) -> None:
    data_dir = tmp_path / "data"
    warm_corpus(data_dir)
    port = free_port()
    with httpx.Client(timeout=30) as http:
        first = serve(data_dir, port)
        first.wait_ready(http)
        started = http.post(
            f"{first.url}/api/research",
            json={
                "query": QUERY,
                "mode": "deep_research",
                "options": {"num_agents": 2, "enable_clarifying_questions": False},
            },
        )
        assert started.status_code == 202, started.text
        session_id = started.json()["session_id"]

        llm.wait_frozen(FREEZE_S)
        running = in_flight(data_dir / "devhost.sqlite3", session_id)
        assert names.RUN_RESEARCHER in running, running
        first.kill()
        llm.advance()

        second = serve(data_dir, port)
        second.wait_ready(http)
        view = _wait_for(http, second.url, session_id, lambda v: v["status"] in TERMINAL, FINISH_S)
        sessions = http.get(f"{second.url}/api/chats/{view['chat_id']}/sessions").json()

    assert view["status"] == "completed", view
    folder = data_dir / "memory" / session_id
    assert [p.relative_to(folder) for p in folder.rglob("report.json")] == [Path("report.json")]
    items = sorted(p.name for p in (folder / "items").glob("item_*.json"))
    researcher_runs = sum(agent["done"] for agent in view["progress"]["agents"])
    assert researcher_runs > 0
    assert len(items) == researcher_runs == view["progress"]["findings"], items
    assert items == sorted(f"item_{n}.json" for n in range(1, researcher_runs + 1))
    listed = sessions["sessions"] if isinstance(sessions, dict) else sessions
    assert [s["session_id"] for s in listed] == [session_id]


def _wait_for(http: httpx.Client, url: str, session_id: str, done, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        view = http.get(f"{url}/api/research/{session_id}").json()
        if done(view):
            return view
        assert time.monotonic() < deadline, f"still {view['status']}/{view['phase']}"
        time.sleep(0.2)
