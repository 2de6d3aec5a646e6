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
first start request to the last terminal instance. For the capacity model
(docs/benchmarks.md) it also measures what one session costs the worker:

- CPU-seconds per session: the process's CPU time during the run, less the
  CPU the bench's own client threads (starters, pollers) spent;
- durable actions per session, counted from the histories the way the Durable
  Task Scheduler bills them (an orchestration or sub-orchestration start 1, an
  activity 2: scheduled and its result, a timer or an external event 1, a
  sub-orchestration's result 1);
- memory: the peak RSS while it runs, and what stays after all sessions have
  finished (it must not grow with the number of finished sessions).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import httpx

from bench.scenarios import FAST_CAPS, QUERY, Bench, offline_settings, temp_dir
from bench.waves import run_waves
from bench.worker_usage import process_cpu, rss_mb
from devhost import history as h
from devhost.history import EventType
from shared.core import names

# The load scenario's caps: small sessions, so that 1,000 of them fit in minutes on 2 cores.
LOAD_CAPS = {
    **FAST_CAPS,
    "run_deep_search_first": False,
    "num_agents": 2,
    "agent_max_steps": 2,
    "max_supervisor_calls": 1,
    "max_iterations": 2,
}
POLLERS = 4
POLL_PAUSE_S = 0.02
STARTERS = 16
RSS_SAMPLE_S = 0.25
# What the Durable Task Scheduler bills per history event ("actions"); the events not
# listed (completions of an episode, of an activity: counted with their start) cost none.
ACTIONS_PER_EVENT = {
    EventType.EXECUTION_STARTED: 1,
    EventType.TASK_SCHEDULED: 2,
    EventType.TIMER_FIRED: 1,
    EventType.EVENT_RAISED: 1,
    EventType.SUB_ORCHESTRATION_INSTANCE_COMPLETED: 1,
    EventType.SUB_ORCHESTRATION_INSTANCE_FAILED: 1,
}


@dataclass
class LoadResult:
    sessions: int
    seconds: float
    latencies: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    cpu_seconds: float = 0.0  # the worker's, client threads excluded
    actions: int = 0  # durable actions of all sessions (see ACTIONS_PER_EVENT)
    episodes: int = 0  # orchestrator work items (replays) of all sessions
    activities: int = 0
    rss_start_mb: float = 0.0
    rss_peak_mb: float = 0.0
    rss_end_mb: float = 0.0  # after every session finished and a garbage collection

    @property
    def ok(self) -> bool:
        return not self.problems

    def quantile_ms(self, q: int) -> float:
        """The q-th percentile (5 ≤ q ≤ 95, step 5) of the status polls, in ms."""
        if len(self.latencies) < 2:
            return (self.latencies or [0.0])[0] * 1000
        return statistics.quantiles(self.latencies, n=20)[q // 5 - 1] * 1000


class _ClientCpu:
    """CPU seconds the bench's own client threads spent (not the worker's to pay)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._lock = threading.Lock()

    def add(self, seconds: float) -> None:
        with self._lock:
            self.seconds += seconds


def run_load(bench: Bench, n: int, options: dict) -> LoadResult:
    """Start ``n`` deep research sessions in ``n`` chats at once; poll; check each one."""
    assert bench.host.engine is not None
    run = uuid.uuid4().hex[:8]
    chats = [f"load-{run}-{i}" for i in range(n)]
    client_cpu = _ClientCpu()
    pids = bench.host.engine.worker_pids()  # empty: activities run in this process
    since = h.iso(h.utcnow())  # earlier waves' instances are not this run's to check
    completions = bench.host.engine.stats[f"activity:{names.COMPLETE_SESSION}"]
    gc.collect()
    rss = _RssSampler(pids).start()
    cpu_before = process_cpu(pids)
    started = time.perf_counter()
    with ThreadPoolExecutor(STARTERS) as pool:
        ids = list(pool.map(lambda i: _start(bench, chats[i], i, options, client_cpu), range(n)))
    latencies: list[float] = []
    stop = threading.Event()
    pollers = [
        threading.Thread(
            target=_poll, args=(bench.host.url, ids[k::POLLERS], latencies, stop, client_cpu)
        )
        for k in range(POLLERS)
    ]
    for poller in pollers:
        poller.start()
    for session_id in ids:
        bench.host.engine.wait(session_id, 3600)
    seconds = time.perf_counter() - started
    stop.set()
    for poller in pollers:
        poller.join(60)
    cpu = process_cpu(pids) - cpu_before - client_cpu.seconds
    gc.collect()
    result = LoadResult(n, seconds, latencies, cpu_seconds=cpu)
    result.rss_start_mb, result.rss_peak_mb, result.rss_end_mb = rss.stop()
    result.problems = _check(bench, dict(zip(ids, chats, strict=True)), since, completions)
    count_actions(bench, set(ids), result, since)
    return result


def _start(bench: Bench, chat_id: str, i: int, options: dict, cpu: _ClientCpu) -> str:
    begun = time.thread_time()
    body = {
        "query": f"{QUERY} (variant {i})",
        "mode": "deep_research",
        "chat_id": chat_id,
        "options": options,
    }
    with httpx.Client(base_url=bench.host.url, timeout=120) as client:
        response = client.post("/api/research", json=body)
    response.raise_for_status()
    cpu.add(time.thread_time() - begun)
    return response.json()["session_id"]


def _poll(
    base_url: str, ids: list[str], latencies: list[float], stop: threading.Event, cpu: _ClientCpu
) -> None:
    """One user-like client: poll its sessions' status round-robin until told to stop."""
    begun_cpu = time.thread_time()
    with httpx.Client(base_url=base_url, timeout=60) as client:
        k = 0
        while ids and not stop.is_set():
            begun = time.perf_counter()
            client.get(f"/api/research/{ids[k % len(ids)]}").raise_for_status()
            latencies.append(time.perf_counter() - begun)  # list.append is atomic
            k += 1
            stop.wait(POLL_PAUSE_S)
    cpu.add(time.thread_time() - begun_cpu)


class _RssSampler:
    """Resident memory (devhost and its worker processes), sampled while the load runs:
    (start, peak, end)."""

    def __init__(self, pids: list[int]) -> None:
        self._pids = pids
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self.start_mb = self.peak_mb = rss_mb(pids)

    def start(self) -> _RssSampler:
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(RSS_SAMPLE_S):
            self.peak_mb = max(self.peak_mb, rss_mb(self._pids))

    def stop(self) -> tuple[float, float, float]:
        self._stop.set()
        self._thread.join(5)
        end = rss_mb(self._pids)
        return self.start_mb, max(self.peak_mb, end), end


def count_actions(
    bench: Bench, session_ids: set[str], result: LoadResult, since: str | None = None
) -> None:
    """Durable actions, episodes and activities of the sessions' instance trees (created
    ``since``, when given)."""
    engine = bench.host.engine
    assert engine is not None
    for inst in engine.store.query(created_from=since):
        root = inst.id.split(names.INSTANCE_SEPARATOR, 1)[0]
        if inst.id not in session_ids and root not in session_ids:
            continue
        for e in inst.history:
            kind = e["EventType"]
            result.actions += ACTIONS_PER_EVENT.get(kind, 0)
            result.episodes += kind == EventType.ORCHESTRATOR_STARTED
            result.activities += kind == EventType.TASK_SCHEDULED


def _check(bench: Bench, chats_by_id: dict[str, str], since: str, completed: int) -> list[str]:
    """Every way a session could be lost or doubled, as readable problems (empty: all fine).

    Only instances created ``since`` the run started count, and ``complete_session`` runs
    beyond the ``completed`` before it: a devhost may have served earlier waves."""
    engine = bench.host.engine
    assert engine is not None
    problems = []
    orchestrator = names.ORCHESTRATOR_BY_MODE["deep_research"]
    created = engine.store.query(created_from=since)
    tops = [i for i in created if i.parent_id is None and i.name == orchestrator]
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
    completions = engine.stats[f"activity:{names.COMPLETE_SESSION}"] - completed
    if completions != len(chats_by_id):
        problems.append(f"complete_session ran {completions} times for {len(chats_by_id)}")
    return problems


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.load [--sessions N] [--processes P] [--waves W [--trace]]``: the load
    row alone, to iterate; with ``--waves``, memory against finished sessions (bench.waves)."""
    parser = argparse.ArgumentParser(prog="python -m bench.load")
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--processes", type=int, default=1, help="FUNCTIONS_WORKER_PROCESS_COUNT")
    parser.add_argument("--waves", type=int, default=0, help="waves of --sessions, one devhost")
    parser.add_argument("--trace", action="store_true", help="with --waves: tracemalloc diff")
    args = parser.parse_args(argv)
    bench = Bench(offline_settings(temp_dir(), functions_worker_process_count=args.processes))
    try:
        if args.waves:
            assert bench.host.engine is not None
            waves = run_waves(
                lambda: run_load(bench, args.sessions, LOAD_CAPS),
                args.waves,
                args.sessions,
                bench.host.engine.worker_pids(),
                args.trace,
            )
            print("\n".join(waves.lines()))
            return 0 if all(r.ok for r in waves.results) else 1
        r = run_load(bench, args.sessions, LOAD_CAPS)
    finally:
        bench.close()
    print(
        f"{r.sessions} sessions, {args.processes} worker process(es): {len(r.problems)} problems, "
        f"{r.seconds:.1f} s; status p50/p95 {r.quantile_ms(50):.0f}/{r.quantile_ms(95):.0f} ms "
        f"({len(r.latencies)} polls); {r.cpu_seconds / r.sessions:.3f} CPU-s per session; "
        f"RSS {r.rss_start_mb:.0f}/{r.rss_peak_mb:.0f}/{r.rss_end_mb:.0f} MB"
    )
    for problem in r.problems[:10]:
        print(f"  problem: {problem}")
    return 0 if r.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
