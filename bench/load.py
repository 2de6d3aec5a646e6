"""Load: many deep research sessions at once on one devhost, each completed exactly once.

All sessions are started together (one chat each: a chat may have only one
active deep research), while a few clients poll their status the way users
do. Then every session is checked, not sampled:

- the session reads ``completed`` over the API, and its chat has exactly one
  session;
- devhost's SQLite holds exactly one top-level deep research instance per
  session (no duplicate start) and its history has exactly one
  ``ExecutionCompleted`` and no ``ExecutionFailed``;
- ``complete_session`` ran once per session (nothing retried or redone).

Status-poll latency is measured at the client (p50 / p95), total time from the
first start request to the last terminal instance.
"""

from __future__ import annotations

import statistics
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import httpx

from bench.scenarios import QUERY, Bench
from devhost.history import EventType
from shared.core import names

POLLERS = 4
POLL_PAUSE_S = 0.02
STARTERS = 16


@dataclass
class LoadResult:
    sessions: int
    seconds: float
    latencies: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def quantile_ms(self, q: int) -> float:
        """The q-th percentile (5 ≤ q ≤ 95, step 5) of the status polls, in ms."""
        if len(self.latencies) < 2:
            return (self.latencies or [0.0])[0] * 1000
        return statistics.quantiles(self.latencies, n=20)[q // 5 - 1] * 1000


def run_load(bench: Bench, n: int, options: dict) -> LoadResult:
    """Start ``n`` deep research sessions in ``n`` chats at once; poll; check each one."""
    assert bench.host.engine is not None
    run = uuid.uuid4().hex[:8]
    chats = [f"load-{run}-{i}" for i in range(n)]
    started = time.perf_counter()
    with ThreadPoolExecutor(STARTERS) as pool:
        ids = list(pool.map(lambda i: _start(bench, chats[i], i, options), range(n)))
    latencies: list[float] = []
    stop = threading.Event()
    pollers = [
        threading.Thread(target=_poll, args=(bench.host.url, ids[k::POLLERS], latencies, stop))
        for k in range(POLLERS)
    ]
    for poller in pollers:
        poller.start()
    for session_id in ids:
        bench.host.engine.wait(session_id, 900)
    seconds = time.perf_counter() - started
    stop.set()
    for poller in pollers:
        poller.join(60)
    result = LoadResult(n, seconds, latencies)
    result.problems = _check(bench, dict(zip(ids, chats, strict=True)))
    return result


def _start(bench: Bench, chat_id: str, i: int, options: dict) -> str:
    body = {
        "query": f"{QUERY} (variant {i})",
        "mode": "deep_research",
        "chat_id": chat_id,
        "options": options,
    }
    with httpx.Client(base_url=bench.host.url, timeout=120) as client:
        response = client.post("/api/research", json=body)
    response.raise_for_status()
    return response.json()["session_id"]


def _poll(base_url: str, ids: list[str], latencies: list[float], stop: threading.Event) -> None:
    """One user-like client: poll its sessions' status round-robin until told to stop."""
    with httpx.Client(base_url=base_url, timeout=60) as client:
        k = 0
        while ids and not stop.is_set():
            begun = time.perf_counter()
            client.get(f"/api/research/{ids[k % len(ids)]}").raise_for_status()
            latencies.append(time.perf_counter() - begun)  # list.append is atomic
            k += 1
            stop.wait(POLL_PAUSE_S)


def _check(bench: Bench, chats_by_id: dict[str, str]) -> list[str]:
    """Every way a session could be lost or doubled, as readable problems (empty: all fine)."""
    engine = bench.host.engine
    assert engine is not None
    problems = []
    orchestrator = names.ORCHESTRATOR_BY_MODE["deep_research"]
    tops = [i for i in engine.store.query() if i.parent_id is None and i.name == orchestrator]
    if sorted(i.id for i in tops) != sorted(chats_by_id):
        problems.append(f"{len(tops)} deep research instances for {len(chats_by_id)} sessions")
    for inst in tops:
        ends = [e["EventType"] for e in inst.history]
        if ends.count(EventType.EXECUTION_COMPLETED) != 1 or EventType.EXECUTION_FAILED in ends:
            problems.append(f"{inst.id}: {inst.status}, history ends {ends[-3:]}")
    for session_id, chat_id in chats_by_id.items():
        view = bench.client.get(f"/api/research/{session_id}").json()
        in_chat = bench.client.get(f"/api/chats/{chat_id}/sessions").json()["sessions"]
        if view["status"] != "completed" or len(in_chat) != 1:
            problems.append(f"{session_id}: {view['status']}, {len(in_chat)} sessions in its chat")
    completions = engine.stats[f"activity:{names.COMPLETE_SESSION}"]
    if completions != len(chats_by_id):
        problems.append(f"complete_session ran {completions} times for {len(chats_by_id)}")
    return problems
