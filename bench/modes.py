"""The per-mode benchmarks: LLM cost against its bound, and the durable footprint.

Split from ``bench.run`` (which runs everything and prints the table): for
chat, search and deep search it runs one session each against the fast fake
LLM and reports calls and tokens and the orchestration history's size; deep
research's numbers come from the overhead run (``bench.latency``) and are
checked against ``max_llm_calls`` of its caps.
"""

from __future__ import annotations

from bench import history
from bench.fake_llm import LatencyLLM
from bench.results import Row, verdict
from bench.scenarios import FAST_CAPS, Bench, llm_settings, temp_dir
from shared.core.config import Settings

PAYLOAD_LIMIT = 16 * 1024


def cost_bound(caps_options: dict) -> int | None:
    try:
        from shared.adapters.reasoning.call_budget import max_llm_calls
    except ImportError:
        return None
    from shared.core.config import ResearchOptions

    return max_llm_calls(Settings().caps_for(ResearchOptions(**caps_options)))


def usage_text(view: dict, calls: int) -> str:
    u = view["usage"]
    tokens = u["prompt_tokens"] + u["completion_tokens"]
    return f"{calls} calls (meter {u['llm_calls']}), {tokens} tokens"


def bench_modes(llm: LatencyLLM, deep: dict) -> list[Row]:
    rows: list[Row] = []
    bench = Bench(llm_settings(temp_dir(), llm.base_url))
    try:
        for mode in ("chat", "search", "deep_search"):
            llm.reset()
            sid, _, view = bench.run(mode)
            assert bench.host.engine is not None
            events, largest = history.footprint(bench.host.engine, sid)
            rows.append((f"cost: {mode}", usage_text(view, len(llm.intervals())), "", "—"))
            rows.append(footprint_row(mode, events, largest))
    finally:
        bench.close()
    bound = cost_bound(FAST_CAPS)
    ok = None if bound is None else deep["calls"] <= bound
    rows.append(
        (
            "cost: deep_research (vs max_llm_calls(caps))",
            f"{usage_text(deep['view'], deep['calls'])}; bound {bound or 'n/a'}",
            "≤ bound",
            verdict(ok),
        )
    )
    rows.append(footprint_row("deep_research", deep["events"], deep["largest"]))
    return rows


def footprint_row(mode: str, events: int, largest: int) -> Row:
    return (
        f"durable footprint: {mode} (history events; largest payload)",
        f"{events} events; {largest / 1024:.1f} KB",
        "≤ 16 KB",
        verdict(largest <= PAYLOAD_LIMIT),
    )
