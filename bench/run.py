"""``python -m bench.run``: every benchmark of issue 10 in one run, one table of ratios.

Everything goes through devhost (``DevHost(settings, port=0)``) on fresh temp
data dirs, with the local corpus as search and, where an LLM is needed, the
OpenAI-protocol fake with a fixed latency per reply (``bench.fake_llm``).
Numbers are measured, never asserted: the table says which targets hold.
The run's record (table, machine, methods; see ``bench.history`` for the
critical-path bound) goes to ``out/bench/RESULTS.md``; with ``--record`` to
the tracked ``bench/RESULTS.md`` (``make bench-record``).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import subprocess
import sys
import time
from pathlib import Path

from bench import client_cost, engine_app
from bench.answers import bench_answers
from bench.budgets import bench_budgets
from bench.capacity import Measured, capacity_rows
from bench.collections import bench_collections
from bench.costs import bench_costs
from bench.evidence import bench_evidence
from bench.fake_llm import LatencyLLM
from bench.hybrid import bench_hybrid
from bench.latency import LATENCY, OVERHEAD_RUNS, bench_fanout, bench_overhead
from bench.load import LOAD_CAPS, POLLERS, LoadResult, count_actions, run_load
from bench.modes import bench_modes
from bench.passages import bench_passages
from bench.precision import bench_precision
from bench.results import (
    RECORDED,
    SCRATCH,
    Row,
    table,
    verdict,
    write_results,
)
from bench.scenarios import (
    Bench,
    offline_settings,
    remove_temp_dirs,
    temp_dir,
)
from bench.status_reads import bench_status_reads
from bench.worker_usage import process_cpu

SMALL_LATENCY = 0.02
WARM_UP_TARGET = 5.0  # issue 32: a worker whose index is cached is ready this fast
LOAD_SESSIONS = 1000
# FUNCTIONS_WORKER_PROCESS_COUNT for the load: on 2 cores, 2 worker processes halved the
# status p95 against 1 (the HTTP front no longer waits on the activities' GIL) and 3 gained
# nothing more for another ~230 MB (docs/benchmarks.md). The single-session rows (overhead,
# fan-out) keep 1: a pipe hop per activity costs them more than it frees.
LOAD_WORKER_PROCESSES = 2
STATUS_P95_TARGET_MS = 100


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
    return 0.0


def reset_peak_rss() -> None:
    with contextlib.suppress(OSError):  # Linux >= 4.0: "5" resets VmHWM to the current RSS
        Path("/proc/self/clear_refs").write_text("5", encoding="utf-8")


def bench_engine() -> list[Row]:
    rows = []
    for name, n in (("chain", 20), ("fan", 20), ("fan", 100)):
        ms = engine_app.per_activity_ms(name, n)
        rows.append(
            (f"engine: dispatch per no-op activity, {name} of {n}", f"{ms:.1f} ms", "", "—")
        )
    return rows


def bench_offline() -> list[Row]:
    reset_peak_rss()
    before = peak_rss_mb()
    bench = Bench(offline_settings(temp_dir()))
    try:
        cpu = process_cpu()
        session_id, seconds, view = bench.run("deep_research")
        one = LoadResult(1, seconds, cpu_seconds=process_cpu() - cpu)
        count_actions(bench, {session_id}, one)
    finally:
        bench.close()
    peak = peak_rss_mb()
    warm = warm_worker_seconds()
    return [
        (
            "worker warm-up: corpus index cold build, imports, fonts (once per worker)",
            f"{bench.warmup:.1f} s",
            "",
            "—",
        ),
        (
            "worker warm-up with the corpus index on disk (the reference and the stdlib)",
            f"{warm:.1f} s",
            f"≤ {WARM_UP_TARGET:.0f} s",
            verdict(warm <= WARM_UP_TARGET),
        ),
        ("offline deep research, defaults (wall)", f"{seconds:.1f} s ({view['status']})", "", "—"),
        (
            "  its CPU-seconds and durable actions (default caps)",
            f"{one.cpu_seconds:.2f} s; {one.actions} actions ({one.episodes} episodes, "
            f"{one.activities} activities)",
            "",
            "—",
        ),
        (
            "peak RSS of devhost process during it",
            f"{peak:.0f} MB (start {before:.0f} MB)",
            "",
            "—",
        ),
    ]


def warm_worker_seconds() -> float:
    """``AppServices.warm_up`` in a new process (nothing imported yet) whose DATA_DIR
    shares the index cache the cold build wrote: what a restarted worker pays."""
    code = (
        "import sys, time; t = time.perf_counter(); "
        "from shared.bootstrap import AppServices; from shared.core.config import Settings; "
        "AppServices(Settings(data_dir=sys.argv[1], reasoner='offline', "
        "search_provider='local')).warm_up(); print(time.perf_counter() - t)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(temp_dir())], capture_output=True, text=True, check=True
    )
    return float(done.stdout.strip().splitlines()[-1])


def bench_load() -> tuple[list[Row], LoadResult]:
    """LOAD_SESSIONS offline deep research sessions at once; each must complete exactly once."""
    settings = offline_settings(temp_dir(), functions_worker_process_count=LOAD_WORKER_PROCESSES)
    bench = Bench(settings)
    try:
        r = run_load(bench, LOAD_SESSIONS, LOAD_CAPS)
    finally:
        bench.close()
    for problem in r.problems[:10]:
        print(f"  load problem: {problem}", flush=True)
    n = r.sessions
    p95 = r.quantile_ms(95)
    retained_kb = max(r.rss_end_mb - r.rss_start_mb, 0.0) * 1024 / n
    rows = [
        (
            f"load: {LOAD_SESSIONS} concurrent deep research sessions (offline, "
            f"{LOAD_WORKER_PROCESSES} worker processes), each completed exactly once",
            f"{n} sessions, {len(r.problems)} problems; total {r.seconds:.1f} s",
            "0 problems",
            verdict(r.ok),
        ),
        (
            "load: status-poll latency p50 / p95 during it",
            f"{r.quantile_ms(50):.0f} / {p95:.0f} ms ({len(r.latencies)} polls)",
            f"p95 ≤ {STATUS_P95_TARGET_MS} ms",
            verdict(p95 <= STATUS_P95_TARGET_MS),
        ),
        (
            "load: worker CPU-seconds per session (process CPU less the bench's clients)",
            f"{r.cpu_seconds / n:.3f} s ({r.cpu_seconds:.0f} s in all)",
            "",
            "—",
        ),
        (
            "load: durable actions per session (as the Durable Task Scheduler bills them)",
            f"{r.actions / n:.1f} actions; {r.episodes / n:.1f} orchestrator episodes, "
            f"{r.activities / n:.1f} activities",
            "",
            "—",
        ),
        (
            "load: memory (RSS, devhost + worker processes) at start / peak / after all finished",
            f"{r.rss_start_mb:.0f} / {r.rss_peak_mb:.0f} / {r.rss_end_mb:.0f} MB "
            f"({retained_kb:.0f} KB kept per finished session)",
            "",
            "—",
        ),
    ]
    return rows, r


def bench_capacity(deep: dict, load: LoadResult) -> list[Row]:
    """The Azure capacity model (bench.capacity) from this run's measurements."""
    measured = Measured(
        cpu_s=deep["cpu"],
        actions=deep["actions"],
        activities=deep["activities"],
        slots=deep["slots"],
        chain_calls=deep["chain"].calls,
        overhead=deep["ratio"],
        session_mb=max(load.rss_peak_mb - load.rss_start_mb, 1.0) / load.sessions,
        # one process's base: in Azure an instance runs one worker process by default
        base_mb=load.rss_start_mb / (LOAD_WORKER_PROCESSES + 1),
    )
    return capacity_rows(measured)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run")
    parser.add_argument(
        "--record", action="store_true", help=f"write {RECORDED} instead of {SCRATCH}"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("root").setLevel(logging.ERROR)
    started = time.perf_counter()
    try:
        rows = run_all()
    finally:
        remove_temp_dirs()
    text = table(rows)
    print(text)
    total = time.perf_counter() - started
    print(f"\nbench took {total:.0f} s")
    counts = {
        "OVERHEAD_RUNS": OVERHEAD_RUNS,
        "LOAD_SESSIONS": LOAD_SESSIONS,
        "LOAD_WORKER_PROCESSES": LOAD_WORKER_PROCESSES,
        "POLLERS": POLLERS,
        "CLIENT_CALLS": client_cost.CALLS,
        "CLIENT_PHASE_RUNS": client_cost.PHASE_RUNS,
    }
    path = write_results(text, total, counts, RECORDED if args.record else SCRATCH)
    print(f"results written to {path}")
    return 0


def run_all() -> list[Row]:
    rows: list[Row] = []
    step = lambda name: print(f"· {name}", flush=True)  # noqa: E731
    step("engine dispatch")
    rows += bench_engine()
    step("status reads vs history length")
    rows += bench_status_reads()
    step("passage selection per page use")
    rows += bench_passages()
    step("collections: ingestion, retrieval, recall@10")
    rows += bench_collections()
    step("collections: hybrid search (fake embeddings)")
    rows += bench_hybrid()
    step("offline deep research")
    rows += bench_offline()
    step("offline citation precision")
    rows += bench_precision()
    step("offline search and chat answers")
    rows += bench_answers()
    llm = LatencyLLM(LATENCY).start()
    try:
        step(f"deep research against a {LATENCY * 1000:.0f} ms fake LLM, {OVERHEAD_RUNS} runs")
        overhead, deep = bench_overhead(llm)
        rows += overhead
    finally:
        llm.stop()
    wide = LatencyLLM(LATENCY, topics=4).start()
    try:
        step("fan-out 1 vs 4 agents")
        rows += bench_fanout(wide)
    finally:
        wide.stop()
    fast = LatencyLLM(SMALL_LATENCY).start()
    try:
        step("cost and footprint per mode")
        rows += bench_modes(fast, deep)
        step("token budgets 20k / 40k / 80k")
        rows += bench_budgets(fast)
        step("evidence reaching the writer")
        rows += bench_evidence(fast)
        wide_fast = LatencyLLM(SMALL_LATENCY, topics=4).start()
        try:
            step("cost per depth with named models' prices")
            rows += bench_costs(fast, wide_fast)
        finally:
            wide_fast.stop()
    finally:
        fast.stop()
    step(f"{LOAD_SESSIONS} concurrent deep research sessions (offline)")
    load_rows, load = bench_load()
    rows += load_rows
    rows += bench_capacity(deep, load)
    return rows


if __name__ == "__main__":
    sys.exit(main())
