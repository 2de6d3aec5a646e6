"""The latency benchmarks: orchestration overhead against the critical path, and fan-out.

Split from ``bench.run`` (which runs everything and prints the table): both
benchmarks run deep research against the OpenAI-protocol fake with a fixed
latency per reply (``LATENCY``), so the wall time can be set against what the
LLM calls alone must take. Overhead divides the wall by the critical-path
bound (``bench.history``); fan-out compares the researcher phase with one and
with four agents.
"""

from __future__ import annotations

from bench import history
from bench.client_cost import CALLS, PHASE_RUNS, client_phase, client_seconds
from bench.fake_llm import LatencyLLM
from bench.load import LoadResult, count_actions
from bench.results import Row, stolen_cpu_seconds, verdict
from bench.scenarios import FAST_CAPS, Bench, llm_settings, temp_dir
from bench.worker_usage import process_cpu

LATENCY = 0.2
OVERHEAD_RUNS = 5
OVERHEAD_TARGET = 1.03
FANOUT_TARGET = 3.95
FANOUT_RUNS = 3
FANOUT_TODOS = 4
FANOUT_CAPS = {
    **FAST_CAPS,
    "run_deep_search_first": False,
    "max_supervisor_calls": 0,
    "agent_max_steps": 3,
}


def overhead_run(llm: LatencyLLM, processes: int = 1) -> dict:
    """One deep research with default options against the 200 ms fake (one-topic plan)."""
    bench = Bench(llm_settings(temp_dir(), llm.base_url, functions_worker_process_count=processes))
    llm.reset()
    before = stolen_cpu_seconds()
    assert bench.host.engine is not None
    pids = bench.host.engine.worker_pids()
    cpu = process_cpu(pids)
    try:
        sid, seconds, view = bench.run("deep_research", options=FAST_CAPS)
        cpu = process_cpu(pids) - cpu  # the worker's CPU: the fake LLM runs in its own process
        after = stolen_cpu_seconds()
        engine = bench.host.engine
        assert engine is not None
        chain = history.critical_chain(engine, sid, llm.intervals())
        events, largest = history.footprint(engine, sid)
        one = LoadResult(1, seconds, cpu_seconds=cpu)
        count_actions(bench, {sid}, one)
        slots = history.activity_seconds(engine, sid) / seconds
        store = (*bench.memory.reads_writes(), *bench.sessions.reads_writes())
        prompt_chars = llm.median_prompt_chars()
    finally:
        bench.close()
    bound = chain.calls * LATENCY
    return {
        "seconds": seconds,
        "chain": chain,
        "ratio": seconds / bound if bound else float("inf"),
        "view": view,
        "calls": len(llm.intervals()),
        "events": events,
        "largest": largest,
        "store": store,
        "stolen": None if before is None or after is None else after - before,
        "cpu": cpu,
        "actions": one.actions,
        "episodes": one.episodes,
        "activities": one.activities,
        "slots": slots,
        "prompt_chars": prompt_chars,
    }


def bench_overhead(llm: LatencyLLM, processes: int = 1) -> tuple[list[Row], dict]:
    """The overhead run, OVERHEAD_RUNS times: the median run is reported, with the range.

    One run varies by a few percent on a shared 2-core machine whose speed
    drifts (Python CPU time against a fixed L), more than the margins being
    measured; the median of a few says more than any one.
    """
    runs = sorted(
        (overhead_run(llm, processes) for _ in range(OVERHEAD_RUNS)), key=lambda r: r["ratio"]
    )
    mid = runs[len(runs) // 2]
    chain, seconds = mid["chain"], mid["seconds"]
    bound = chain.calls * LATENCY
    client = client_seconds(llm, LATENCY, mid["prompt_chars"])
    floor = bound + chain.between
    spread = f"{runs[0]['ratio']:.3f}–{runs[-1]['ratio']:.3f}"
    rows = [
        (
            f"orchestration overhead: wall / critical-path bound (median of {OVERHEAD_RUNS})",
            f"{mid['ratio']:.3f} (range {spread}; {seconds:.1f} s / {chain.calls} calls × "
            f"{LATENCY * 1000:.0f} ms)",
            f"≤ {OVERHEAD_TARGET}",
            verdict(mid["ratio"] <= OVERHEAD_TARGET),
        ),
        (
            "  of which, on the critical chain",
            f"LLM {bound:.1f} s; other work in tasks {chain.in_tasks - bound:.1f} s; between "
            f"tasks (engine) {chain.between:.1f} s; HTTP start/poll "
            f"{seconds - chain.in_tasks - chain.between:.1f} s",
            "",
            "—",
        ),
        (
            "  floor: the ratio with no work in tasks but the model calls (engine, SDK replay)",
            f"{floor / bound:.3f}" if bound else "n/a",
            "",
            "—",
        ),
        (
            "  floor with the model client's own time per call (openai SDK, httpx, loopback)",
            f"{(floor + chain.calls * client) / bound:.3f} ({client * 1000:.1f} ms a call, median "
            f"of {CALLS} calls with the run's median prompt)"
            if bound
            else "n/a",
            "",
            "—",
        ),
        ("  tasks on the critical chain (by time beyond their LLM calls)", slowest(chain), "", "—"),
        (
            "  that session's worker CPU-seconds, durable actions, activities in flight (mean)",
            f"{mid['cpu']:.2f} s; {mid['actions']} actions; {mid['slots']:.2f} activity slots",
            "",
            "—",
        ),
        (
            "  CPU stolen by the hypervisor during that run (all cores)",
            "n/a" if mid["stolen"] is None else f"{mid['stolen']:.1f} s",
            "",
            "—",
        ),
    ]
    mem_r, mem_w, ses_r, ses_w = mid["store"]
    rows.append(
        ("memory store ops per deep research (reads / writes)", f"{mem_r} / {mem_w}", "", "—")
    )
    rows.append(
        ("session store ops per deep research (reads / writes)", f"{ses_r} / {ses_w}", "", "—")
    )
    return rows, mid


def slowest(chain: history.Chain, top: int = 4) -> str:
    """The activities whose time beyond their LLM calls adds up most on the chain."""
    extra: dict[str, float] = {}
    count: dict[str, int] = {}
    for name, seconds, calls in chain.steps:
        extra[name] = extra.get(name, 0.0) + seconds - calls * LATENCY
        count[name] = count.get(name, 0) + 1
    worst = sorted(extra, key=lambda n: -extra[n])[:top]
    return f"{len(chain.steps)} tasks; " + ", ".join(
        f"{n} ×{count[n]} {extra[n]:.2f} s" for n in worst
    )


def fanout_run(llm: LatencyLLM, agents: int, processes: int = 1) -> tuple[float, float, float, int]:
    """(researcher phase span, that span at its floor, whole session wall, the model calls
    of a researcher on the chain) of one run with ``agents`` agents; the floor is
    ``history.phase_floor``."""
    bench = Bench(llm_settings(temp_dir(), llm.base_url, functions_worker_process_count=processes))
    llm.reset()
    try:
        sid, wall, view = bench.run("deep_research", options={**FANOUT_CAPS, "num_agents": agents})
        engine = bench.host.engine
        assert engine is not None and view["status"] == "completed"
        assert engine.stats["activity:run_researcher"] == FANOUT_TODOS
        span = history.activity_phase_span(engine, sid, "run_researcher")
        chain = history.critical_chain(engine, sid, llm.intervals())
        floor = history.phase_floor(chain, span, "run_researcher", LATENCY)
        calls = max(c for task, _, c in chain.steps if task == "run_researcher")
        return span, floor, wall, calls
    finally:
        bench.close()


def bench_fanout(llm: LatencyLLM, processes: int = 1) -> list[Row]:
    """Four todos, one vs four agents, no supervisor: median of FANOUT_RUNS pairs of runs."""
    pairs = sorted(
        (
            (fanout_run(llm, 1, processes), fanout_run(llm, 4, processes))
            for _ in range(FANOUT_RUNS)
        ),
        key=lambda pair: pair[0][0] / pair[1][0],
    )
    (span1, floor1, wall1, _), (span4, floor4, wall4, calls) = pairs[len(pairs) // 2]
    low, high = (p[0][0] / p[1][0] for p in (pairs[0], pairs[-1]))
    speedup = span1 / span4
    alone, together = client_phase(llm, LATENCY, llm.median_prompt_chars(), FANOUT_TODOS, calls)
    return [
        (
            f"fan-out speedup, researcher phase, 4 vs 1 agent (4 todos, median of {FANOUT_RUNS})",
            f"{speedup:.2f}× (range {low:.2f}–{high:.2f}; {span1:.1f} s → {span4:.1f} s)",
            f"≥ {FANOUT_TARGET}×",
            verdict(speedup >= FANOUT_TARGET),
        ),
        (
            "  floor: the speedup with no work in run_researcher but its model calls (same runs)",
            f"{floor1 / floor4:.2f}× ({floor1:.2f} s → {floor4:.2f} s; researchers on the chain "
            f"beyond their calls {span1 - floor1:.2f} s → {span4 - floor4:.2f} s)"
            if floor4 > 0
            else "n/a",
            "",
            "—",
        ),
        (
            "  floor with the model client's own time (the researchers' calls alone: in a row "
            "vs 4 threads)",
            f"{(floor1 + alone) / (floor4 + together):.2f}× (the calls beyond their replies "
            f"{alone * 1000:.0f} ms → {together * 1000:.0f} ms, medians of {PHASE_RUNS})"
            if floor4 > 0
            else "n/a",
            "",
            "—",
        ),
        (
            "fan-out speedup, whole session, 4 vs 1 agent (same run)",
            f"{wall1 / wall4:.2f}× ({wall1:.1f} s → {wall4:.1f} s)",
            "",
            "—",
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.latency [--processes P] [--only overhead|fanout]``: these rows alone."""
    import argparse

    from bench.results import table
    from bench.scenarios import remove_temp_dirs

    parser = argparse.ArgumentParser(prog="python -m bench.latency")
    parser.add_argument("--processes", type=int, default=1, help="FUNCTIONS_WORKER_PROCESS_COUNT")
    parser.add_argument("--only", choices=("overhead", "fanout"))
    args = parser.parse_args(argv)
    rows: list[Row] = []
    try:
        for name, topics in (("overhead", 1), ("fanout", FANOUT_TODOS)):
            if args.only in (None, name):
                llm = LatencyLLM(LATENCY, topics=topics).start()
                try:
                    if name == "overhead":
                        rows += bench_overhead(llm, args.processes)[0]
                    else:
                        rows += bench_fanout(llm, args.processes)
                finally:
                    llm.stop()
    finally:
        remove_temp_dirs()
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
