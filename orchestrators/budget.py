"""The session's token / cost budget, spent the way a careful person would.

A budget (``options.max_tokens`` / ``max_cost_usd``, or MAX_TOKENS_PER_SESSION /
MAX_COST_PER_SESSION_USD) is only known to hold if every phase asks before it
starts, sizes its work to what is left, and leaves room for the report:

- the unit is one LLM call, priced at the average the run has paid per call so
  far (never below ``PRIOR_TOKENS_PER_CALL``): calls differ, but the average
  follows the model, the prompts and the corpus without a price table;
- work already scheduled (researchers in flight) is ``committed``: it will be
  spent whatever the orchestrator decides next;
- ``REPORT_CALLS`` stay reserved until the report is written, so the research
  can never eat the money the report needs.

A run then ends within the budget plus what its in-flight calls overshoot
their estimate. Pure functions of the caps and the usage recorded in history:
deterministic on replay.
"""

from __future__ import annotations

import math

from shared.core.config import Caps
from shared.core.session_models import Usage

PRIOR_TOKENS_PER_CALL = 1500
# Weights in average calls; a report reply is several times an average one.
REPORT_CALLS = 4
CRITIQUE_CALLS = 1
REWRITE_CALLS = 4
LLM_CALLS_PER_REVIEW = 3  # one supervisor review reads every finding so far
PLANNING_CALLS = 3  # analyze, plan, agent profiles
RESEARCHER_MIN_CALLS = 2  # one step and the finding
CLARIFY_CALLS = 1
DEEP_SEARCH_SHARE = 0.3  # of what is left when the deep search starts
BUDGET_NOTE = "the token or cost budget"


def limited(caps: Caps) -> bool:
    return bool(caps.max_tokens or caps.max_cost_usd)


def calls_left(caps: Caps, usage: Usage, *, reserve: int = 0, committed: int = 0) -> int | None:
    """Average calls the budget still pays for beside ``reserve`` and ``committed``.

    None when the session has no budget.
    """
    if not limited(caps):
        return None
    calls = max(usage.llm_calls, 1)
    left: list[float] = []
    if caps.max_tokens:
        per_call = max(usage.total_tokens / calls, PRIOR_TOKENS_PER_CALL)
        left.append((caps.max_tokens - usage.total_tokens) / per_call)
    if caps.max_cost_usd:
        if usage.cost >= caps.max_cost_usd:
            left.append(0)
        elif usage.llm_calls and usage.cost > 0:
            left.append((caps.max_cost_usd - usage.cost) / (usage.cost / calls))
    if not left:  # a cost budget before the first priced call: nothing known yet
        return None
    return math.floor(min(left)) - reserve - committed


def fits(caps: Caps, usage: Usage, calls: int, *, reserve: int = 0, committed: int = 0) -> bool:
    """True when ``calls`` more average calls fit beside the reserve and the committed work."""
    left = calls_left(caps, usage, reserve=reserve, committed=committed)
    return left is None or left >= calls


def share(caps: Caps, usage: Usage, fraction: float) -> Caps:
    """Caps for a sub-run (the deep search first) that may spend ``fraction`` of what is left."""
    if not limited(caps):
        return caps
    update: dict = {}
    if caps.max_tokens:
        update["max_tokens"] = max(1, int((caps.max_tokens - usage.total_tokens) * fraction))
    if caps.max_cost_usd:
        update["max_cost_usd"] = max(1e-9, (caps.max_cost_usd - usage.cost) * fraction)
    return caps.model_copy(update=update)
