"""The table and its Markdown record: how a run is printed and kept, with its machine.

``make bench`` writes the record to ``out/bench/RESULTS.md`` (untracked);
only ``make bench-record`` (``--record``) rewrites the tracked
``bench/RESULTS.md``, so a run never dirties the working tree by accident.
"""

from __future__ import annotations

import os
import platform
import sys
from datetime import UTC, datetime
from pathlib import Path

RECORDED = Path(__file__).with_name("RESULTS.md")
SCRATCH = Path(__file__).resolve().parents[1] / "out" / "bench" / "RESULTS.md"
Row = tuple[str, str, str, str]  # metric, value, target, verdict


def verdict(ok: bool | None) -> str:
    return "—" if ok is None else ("met" if ok else "MISSED")


def machine() -> dict[str, str]:
    cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    model = next(
        (ln.split(":", 1)[1].strip() for ln in cpuinfo.splitlines() if ln.startswith("model name")),
        platform.processor() or "unknown",
    )
    meminfo = Path("/proc/meminfo").read_text(encoding="utf-8").splitlines()
    mem_kb = int(next(ln.split()[1] for ln in meminfo if ln.startswith("MemTotal")))
    return {
        "nproc": str(len(os.sched_getaffinity(0))),
        "cpu": model,
        "memory": f"{mem_kb / 1024 / 1024:.1f} GiB",
        "python": sys.version.split()[0],
        "os": platform.platform(),
    }


def stolen_cpu_seconds() -> float | None:
    """CPU time the hypervisor gave to other guests so far (all cores; Linux ``steal``)."""
    try:
        fields = Path("/proc/stat").read_text(encoding="utf-8").split("\n", 1)[0].split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def table(rows: list[Row]) -> str:
    head = ("metric", "value", "target", "verdict")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(4)]
    line = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |"  # noqa: E731
    return "\n".join(
        [line(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *(line(r) for r in rows)]
    )


def write_results(text: str, total: float, counts: dict[str, int], path: Path = SCRATCH) -> Path:
    """Write the run's record to ``path`` (folders created); returns the path.

    ``counts`` fills the methods' placeholders (``OVERHEAD_RUNS``, ...) with this run's values.
    """
    methods = METHODS
    for name, value in counts.items():
        methods = methods.replace(name, str(value))
    info = machine()
    machine_lines = "\n".join(f"- {k}: {v}" for k, v in info.items())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"# Benchmark results\n\nLast run: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, "
        f"{total:.0f} s in all, `python -m bench.run`.\n\n## Machine\n\n{machine_lines}\n\n"
        f"## Table\n\n{text}\n\n{methods}",
        encoding="utf-8",
    )
    return path


METHODS = """## Methods

- **Everything runs through devhost** (`DevHost(settings, port=0)`, a fresh
  `DATA_DIR` per run, SQLite + filesystem stores), started and driven over its
  HTTP API. Search is the local corpus (BM25 over CPython's `pydoc_data`
  topics). Each devhost is warmed up first (`AppServices.warm_up()`: corpus index,
  imports, fonts), as a worker that has served a request is; the warm-up row
  is the first, cold one (it builds the corpus index).
- **Fake LLM** (`bench/fake_llm.py`): the tests' OpenAI-protocol fake
  (schema-aware replies) in its own process, like a real endpoint, behind the
  real `openai` client. Every reply leaves exactly L after its request line
  was read (200 ms for overhead and fan-out, 20 ms for cost and load), encoded
  before the wait, however long the fake took to build it. Arrival times go
  to a file for the analysis.
- **Orchestration overhead**: one deep research with the default options
  (deep search first, supervisor on; clarifying questions off so no human
  wait is timed). The fake's minimal plan has one topic, so one researcher
  works at a time and every step is on the critical path. Run OVERHEAD_RUNS
  times; the median run is reported with the range.
  Wall time is start request → terminal status. The bound comes from the
  instance history: a devhost episode applies the events waiting at its
  start, and each task it schedules is triggered by the last of them (the
  latest to arrive). Walking triggers back from the final event gives the
  chain of tasks the finish waited for (sub-orchestrations walked
  recursively); each task on it contributes the most LLM calls that fit one
  after another inside its [scheduled, completed] interval. Bound = L × that
  count. Anything above 1.0 is orchestration, storage, search, extraction and
  Python CPU time; the rows below it split that time and name the tasks on the
  chain that add the most beyond their LLM calls. The floor row keeps only the
  engine between the tasks; the row under it adds what each model call on the
  chain costs the app's own client beyond L (`bench/client_cost.py`: CLIENT_CALLS
  calls through `LLMClient` to the same fake, nothing around them, with a
  prompt of the run's median size; median).
- **Fan-out**: the fake widens every plan to exactly 4 topics (4 todos); the
  runs differ only in the number of agents (1 vs 4), no supervisor reviews, deep
  search off. The researcher phase is the span from the first `run_researcher`
  scheduled to the last completed (from history timestamps). Three pairs of
  runs; the median pair (by speedup) is reported with the range. Its floor
  row is the speedup of the same pair had each `run_researcher` on the
  session's critical chain (all four with one agent, the last to finish with
  four) done nothing but its model calls: each run's span less those
  researchers' time beyond their calls × L, as the overhead floor does for
  the whole chain. The row under it adds the researchers' model calls alone
  through the app's client: as many calls in a row as the one agent's chain
  makes, and four threads making a researcher's calls each at once (their
  replies arrive together, so their client work queues for the GIL); medians
  of CLIENT_PHASE_RUNS.
- **Cost**: LLM calls counted at the fake, tokens from the session's usage
  meter (the fake reports chars/4). The deep research bound is
  `shared.adapters.reasoning.call_budget.max_llm_calls(caps)`. Store operations are counted by
  wrapping the Services' memory and session stores in a counting proxy
  (bench only); reads = get/read/list/history/exists/ping, writes = the rest.
- **Durable footprint**: history events of the instance and its
  sub-orchestrations; the largest payload is the biggest `Input`/`Result` of
  TaskScheduled, TaskCompleted and sub-orchestration events (bytes of JSON).
- **Engine**: a minimal app inside `bench/engine_app.py` with a no-op activity,
  run by devhost's `Engine` directly (chain = sequential calls, fan = one
  `task_all`). Includes SDK replay of the whole history on each episode, so the
  per-activity cost grows with the history length, as in Durable itself.
- **Peak RSS**: `VmHWM` of the bench process (devhost runs in-process), reset
  through `/proc/self/clear_refs` before the offline deep research.
- **Load** (`bench/load.py`): LOAD_SESSIONS deep research sessions on one
  devhost with SQLite and LOAD_WORKER_PROCESSES worker processes
  (`FUNCTIONS_WORKER_PROCESS_COUNT`: activities run there, the host process keeps
  HTTP, orchestrations and history; CPU and RSS are summed over all of them from
  `/proc`), offline reasoner, local corpus (2 agents, 2 steps,
  1 supervisor call, no deep search, no clarification), started at once from
  16 client threads, one chat id each (a chat holds one active deep research).
  POLLERS clients poll the status endpoint of their share of the sessions
  round-robin (20 ms pause) until all are done; p50/p95 of those polls. Total
  time runs from the first start request to the last terminal instance. Every
  session is then checked: `completed` over the API with exactly one session
  in its chat, exactly one top-level instance per session in SQLite with one
  `ExecutionCompleted` and no `ExecutionFailed`, and `complete_session` run
  once per session. "met" means all of them, for every session.
- **Noise**: on a shared VM whose speed drifts, the overhead ratio moves with it
  (Python CPU time against a fixed L). The first row, the engine's no-op
  dispatch, is a speed reference, and the overhead rows say how much CPU the
  hypervisor took away during the median run (`steal` in `/proc/stat`):
  compare ratios across runs together with them.
"""
