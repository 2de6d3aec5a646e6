"""Sessions run through devhost's HTTP API, the way a client runs them."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr

from bench.counting import CountingStore
from devhost.host import DevHost
from shared.bootstrap import services
from shared.core.config import Settings

QUERY = "How do Python generators, iterators and the yield statement work together?"
FAST_CAPS = {"enable_clarifying_questions": False}
WORKERS_READY_S = 120.0


def llm_settings(data_dir: Path, base_url: str, **extra: Any) -> Settings:
    return Settings(
        data_dir=data_dir,
        reasoner="llm",
        search_provider="local",
        openai_base_url=base_url,
        openai_api_key=SecretStr("bench-key"),
        **extra,
    )


def offline_settings(data_dir: Path, **extra: Any) -> Settings:
    return Settings(data_dir=data_dir, reasoner="offline", search_provider="local", **extra)


class Bench:
    """One devhost on a fresh data dir, with counting stores around the real ones.

    The worker is warmed up before anything is timed (``AppServices.warm_up``:
    the corpus index, imports, fonts), as in a warm worker: otherwise the first
    session pays seconds of one-off CPU and hides what the orchestration itself
    costs. ``warmup`` keeps that time. With worker processes
    (``functions_worker_process_count`` > 1) each warms itself up before the
    timing starts too, and the counting stores see only what runs in this process
    (the HTTP front and orchestrations, not the activities).
    """

    def __init__(self, settings: Settings) -> None:
        self.host = DevHost(settings, port=0).start()
        svc = services()
        self.memory = CountingStore(svc.memory)
        self.sessions = CountingStore(svc.sessions)
        svc.__dict__["memory"], svc.__dict__["sessions"] = self.memory, self.sessions
        started = time.perf_counter()
        svc.warm_up()
        assert self.host.engine is not None
        if not self.host.engine.wait_workers_ready(WORKERS_READY_S):
            raise RuntimeError(f"worker processes not warm after {WORKERS_READY_S} s")
        self.warmup = time.perf_counter() - started
        self.client = httpx.Client(base_url=self.host.url, timeout=120)

    def close(self) -> None:
        self.client.close()
        self.host.stop()

    def start(self, mode: str, query: str = QUERY, options: dict | None = None) -> str:
        body = {"query": query, "mode": mode, "options": options or {}}
        response = self.client.post("/api/research", json=body)
        response.raise_for_status()
        return response.json()["session_id"]

    def run(
        self, mode: str, query: str = QUERY, options: dict | None = None, timeout: float = 600
    ) -> tuple[str, float, dict]:
        """Start a session, answer clarification if asked, wait; (id, seconds, final view)."""
        started = time.perf_counter()
        session_id = self.start(mode, query, options)
        view = self.wait(session_id, timeout)
        return session_id, time.perf_counter() - started, view

    def wait(self, session_id: str, timeout: float = 600) -> dict:
        assert self.host.engine is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            inst = self.host.engine.wait(session_id, 1.0, statuses=())
            view = self.client.get(f"/api/research/{session_id}").json()
            if view["status"] == "waiting_clarification":
                self.client.post(
                    f"/api/research/{session_id}/clarification",
                    json={"text": "Focus on CPython 3.11."},
                )
            elif inst is not None and inst.terminal:
                return view
        raise TimeoutError(f"session {session_id} did not finish in {timeout} s")


_ROOT = Path(tempfile.mkdtemp(prefix="bench-"))


def temp_dir() -> Path:
    """A fresh DATA_DIR under this run's temp root, sharing one corpus index cache.

    The cache is keyed by the corpus content, so the first run builds the index
    (the cold-build figure) and later ones load it, as a restarted worker would.
    """
    folder = Path(tempfile.mkdtemp(prefix="data-", dir=_ROOT))
    shared = _ROOT / "corpus-cache"
    shared.mkdir(exist_ok=True)
    (folder / "corpus-cache").symlink_to(shared, target_is_directory=True)
    return folder


def remove_temp_dirs() -> None:
    shutil.rmtree(_ROOT, ignore_errors=True)
