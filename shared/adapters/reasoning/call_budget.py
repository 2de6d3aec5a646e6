"""LLM calls of one deep research, worst case: :func:`max_llm_calls`. It follows
``orchestrators/deep_research.py``, ``research_queue.py``, ``replan.py`` and
``shared/usecases/research/final_report.py``; keep the four in step. With
R = 1 + MAX_STRUCTURED_OUTPUT_RETRIES and A = activity attempts::

    calls <= A * ( DS                              deep search first (0 if disabled)
                   + R * ( Q                       clarify (0 if disabled)
                         + 4                       time_range, analyze, plan, agent_profiles
                         + T * (S + 1)             per todo: agent_step * S + write_finding
                                                   (the chain's extra search round included:
                                                   its researchers count against T)
                         + V                       supervisor reviews
                         + N                       replans: one plan call each
                         + Y                       analyst: before the writer, again after
                                                   the extra search round
                         + (K + 1) * (B * 2 + 1)   report writes: first + one per critic
                                                   round; each tries B bases twice, then
                                                   follow_up_questions
                         + K ) )                   critique calls
    DS = 1 + R * (2 + (I + 1) * (P + 1)           rewrite (text, only with history),
                  + (I - 1) + 1)                   search_queries, time_range; per iteration
                                                   and the one content round: page summaries
                                                   and a completeness check; follow-up
                                                   queries between iterations; synthesize

with Q = 1 if clarifying questions are on, S = agent max steps, T = researcher
runs (<= DEEP_RESEARCH_DEFAULT_MAX_ITERATIONS), V = min(T, DEEP_RESEARCH_MAX_SUPERVISOR_CALLS),
N = REPLANS (MAX_REPLANS of ``orchestrators/replan.py``), Y = ANALYSES (ANALYST_ROUNDS of
``orchestrators/analysis_chain.py``), K = CRITIC_ROUNDS (3),
B = REPORT_BASES (draft, main, findings), I = search iterations,
P = DEEP_SEARCH_SCRAPE_TOP_N. The deep search phase asks for no follow-up questions
(the report writes its own); a chat or search answer makes one more call for them
(those modes have no bound here). ``time_range`` is asked only when the question
mentions time in words no rule reads (``shared/usecases/research/time_range.py``).
``write_finding`` without pages makes no call; a minimal report makes none.
Transport retries (429/5xx/timeouts) are not calls: only responses are
counted in the usage meter, and a failed activity attempt's usage is lost,
so a session's ``usage.llm_calls`` never exceeds what the endpoint answered.
Draft trimming is extractive, so it adds no call. Not in the bound: a reply
cut at its output cap is continued (``llm_client.MAX_CONTINUATIONS``, up to
3 more calls for that reply); caps are sized so that only a long report in a
language with many tokens per word reaches it.

With ``options.collections`` (``collections=True``) the corrective judge adds one
structured call per topic and session (``shared/usecases/research/coverage.py``): at most
R * (T + SQ), the researchers' topics and, when the deep search runs first, the
question's sub-questions (SQ = COVERAGE_SUB_QUESTIONS, the most ``sub_questions`` returns).
"""

from __future__ import annotations

from shared.core.config import Caps
from shared.core.limits import COVERAGE_SUB_QUESTIONS

# The shape of the flow that bounds the calls (mirrors orchestrators/deep_research.py
# CRITIC_ROUNDS and the basis chain of shared/usecases/research/final_report.py).
CRITIC_ROUNDS = 3
REPLANS = 1
ANALYSES = 2
REPORT_BASES = 3
WRITES_PER_BASIS = 2


def max_llm_calls(
    caps: Caps, *, repairs: int = 0, activity_attempts: int = 1, collections: bool = False
) -> int:
    """Worst-case LLM responses of one deep research under ``caps`` (formula above).

    The defaults bound a run whose model always answers valid JSON and whose
    activities never fail; pass ``repairs=MAX_STRUCTURED_OUTPUT_RETRIES`` and
    the orchestrator's activity attempts for the bound under faults.
    """
    r = 1 + repairs
    i, p = caps.deep_search_iterations, caps.scrape_top_n
    rounds = i + 1  # the iterations, and the one round for content the question lacks
    deep_search = 1 + r * (2 + rounds * (p + 1) + (i - 1) + 1) if caps.run_deep_search_first else 0
    todos = caps.max_iterations
    report_writes = (CRITIC_ROUNDS + 1) * (REPORT_BASES * WRITES_PER_BASIS + 1)
    structured = (
        int(caps.enable_clarifying_questions)
        + 4
        + todos * (caps.agent_max_steps + 1)
        + min(todos, caps.max_supervisor_calls)
        + REPLANS
        + ANALYSES
        + report_writes
        + CRITIC_ROUNDS
    )
    if collections:  # the corrective judge, once per topic
        structured += todos + (COVERAGE_SUB_QUESTIONS if caps.run_deep_search_first else 0)
    return activity_attempts * (deep_search + r * structured)
