"""Deep research: the plan (topics a complete answer must cover) and the agent profiles."""

from __future__ import annotations

from shared.tools.prompts.framing import Messages, messages, preamble

PLAN = """{preamble}

Plan the research for the request below. Split it into 3-{max_topics} topics that
together make a complete answer (fewer only for a very narrow question; never more than
{max_topics}). Topics must not overlap. For each topic give:
- id: 1, 2, 3 ... in order;
- title: a short name;
- priority: 1 (must have) to 5 (nice to have);
- queries: 2-4 web search queries, broad first, then narrower;
- rationale: one sentence on why the answer needs it.
Also return summary: two sentences on the overall approach.

Decompose by the shape of the question:
{patterns}
Other shapes: the aspects a complete answer to that shape must cover.

Analysis of the request: type {query_type}, complexity {complexity}; key concepts: {concepts}.

{brief}"""

# The specification's decomposition patterns: question shape -> the topics it needs.
DECOMPOSITION_PATTERNS = {
    '"What is X?"': ("Definition", "Key features", "Use cases", "Examples"),
    '"How to X?"': ("Prerequisites", "Step-by-step", "Code examples", "Common pitfalls"),
    '"Compare X vs Y"': ("X overview", "Y overview", "Differences", "When to use each"),
}

AGENT_PROFILES = """{preamble}

We will run {n} researcher agents in parallel on the plan below. Give each a distinct
profile so their work complements rather than duplicates: agent_id 1..{n}, name,
specialization (which topics and angle it covers), working_style (how it searches and
weighs evidence), source_preferences (kinds of sources it trusts most, e.g. official
documentation, peer-reviewed papers, statistics offices, reputable press).

{brief}

Plan:
{plan}"""


def build_plan(
    brief: str,
    query_type: str,
    complexity: str,
    concepts: list[str],
    max_topics: int,
    language: str,
    today: str,
) -> Messages:
    text = PLAN.format(
        preamble=preamble(today, language),
        brief=brief,
        query_type=query_type,
        complexity=complexity,
        concepts=", ".join(concepts) or "(none)",
        max_topics=max_topics,
        patterns=patterns_text(),
    )
    return messages("You plan research projects.", text)


def patterns_text() -> str:
    """The decomposition patterns as prompt lines (one per question shape)."""
    return "\n".join(
        f"- {shape} -> {', '.join(topics)}" for shape, topics in DECOMPOSITION_PATTERNS.items()
    )


def build_agent_profiles(brief: str, plan: str, n: int, language: str, today: str) -> Messages:
    text = AGENT_PROFILES.format(preamble=preamble(today, language), brief=brief, plan=plan, n=n)
    return messages("You staff research teams.", text)
