"""Token budgets against the default deep research: does a run end within its budget?

Each budget is one run on the small-latency fake LLM, beside one run without a
budget for scale; the row prints spent / budget (target ≤ 1.10, issue 23).
"""

from __future__ import annotations

from bench.fake_llm import LatencyLLM
from bench.results import Row, verdict
from bench.scenarios import Bench, llm_settings, temp_dir

BUDGETS = (20_000, 40_000, 80_000)


def bench_budgets(llm: LatencyLLM) -> list[Row]:
    """Token budgets against the default deep research: spent / budget, each in one run."""
    rows: list[Row] = []
    bench = Bench(llm_settings(temp_dir(), llm.base_url))
    try:
        for budget in (None, *BUDGETS):
            options = {"enable_clarifying_questions": False}
            if budget:
                options["max_tokens"] = budget
            _, _, view = bench.run("deep_research", options=options)
            u = view["usage"]
            spent = u["prompt_tokens"] + u["completion_tokens"]
            if budget is None:
                rows.append(("budget: none (default caps)", f"{spent} tokens", "", "—"))
                continue
            cut = sum("budget" in w["message"] for w in view.get("warnings", []))
            rows.append(
                (
                    f"budget: {budget} tokens, spent / budget",
                    f"{spent / budget:.2f} ({spent} tokens, {u['llm_calls']} calls; "
                    f"{cut} budget warnings; {view['status']})",
                    "≤ 1.10",
                    verdict(spent <= budget * 1.1 and view["status"] == "completed"),
                )
            )
    finally:
        bench.close()
    return rows
