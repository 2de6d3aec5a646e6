"""What a deep research costs with a named model, at two depths (issue 21).

Each depth is one deep research on the small-latency fake, whose prompts are
the real ones (our templates, real corpus pages, every budget applied). Input
tokens are measured (the fake counts 4 characters a token); output tokens are
bounded by each request's own output cap (``max_tokens``), since the fake's
replies are far shorter than a model's: the figures are upper bounds on the
output side, measured on the input side. Prices are the pricing table's.
"""

from __future__ import annotations

from bench.fake_llm import LatencyLLM
from bench.results import Row
from bench.scenarios import Bench, llm_settings, temp_dir
from shared.tools.llm_endpoint.pricing import PRICES_PER_MILLION

MODELS = ("gpt-4.1-mini", "gpt-4.1")
DEPTHS = {
    # one agent, few steps, no deep search first: a narrow question
    "quick": {
        "num_agents": 1,
        "agent_max_steps": 3,
        "max_iterations": 3,
        "max_supervisor_calls": 2,
        "run_deep_search_first": False,
        "enable_clarifying_questions": False,
    },
    # the defaults, with a plan the model judged complex (4 topics, several agents)
    "default": {"enable_clarifying_questions": False},
}


def dollars(model: str, tokens_in: int, tokens_out: int) -> float:
    price_in, price_out = PRICES_PER_MILLION[model]
    return (tokens_in * price_in + tokens_out * price_out) / 1_000_000


def bench_costs(quick: LatencyLLM, wide: LatencyLLM) -> list[Row]:
    rows: list[Row] = []
    for depth, llm in (("quick", quick), ("default", wide)):
        bench = Bench(llm_settings(temp_dir(), llm.base_url))
        llm.reset()
        try:
            _, _, view = bench.run("deep_research", options=DEPTHS[depth])
        finally:
            bench.close()
        logged = llm.logged()
        tokens_in = sum(r["prompt_chars"] for r in logged) // 4
        tokens_out = sum(r["max_tokens"] for r in logged)
        prices = "; ".join(f"{m} ≤ ${dollars(m, tokens_in, tokens_out):.3f}" for m in MODELS)
        rows.append(
            (
                f"cost: deep research, {depth} depth ({view['status']})",
                f"{len(logged)} calls, {tokens_in} input tokens, ≤ {tokens_out} output "
                f"tokens (caps); {prices}",
                "",
                "—",
            )
        )
    return rows
