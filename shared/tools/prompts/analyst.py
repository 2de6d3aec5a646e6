"""Deep research: the analyst, who reads every finding before anyone writes.

The analyst says what the findings establish and how (the reasoning type),
names what is still missing, and may ask for one more round of searches
(``SEARCH_REQUIRED`` with ``new_queries``). The writer then builds on the
analysis, and the critic checks the report's reasoning against the same evidence.
"""

from __future__ import annotations

from shared.tools.prompts.framing import Messages, evidence_block, messages, preamble

ANALYZE_FINDINGS = """Analyse the research findings below before the report is written.
Return, in this order:
- core_findings: the 3-8 conclusions the evidence supports, each one sentence with its
  [n] source numbers;
- logical_inference: how those conclusions follow from the evidence, in a short paragraph:
  what is established directly, what is inferred, and what is only suggested;
- reasoning_type: induction (a general claim from several cases: say how many and how
  representative), deduction (from an established rule), abduction (the best explanation
  among alternatives) or mixed;
- missing_information: what the question needs that the findings do not contain, each in
  one sentence; empty when nothing essential is missing;
- verdict: SEARCH_REQUIRED only when something essential is missing and a web search could
  find it, else READY;
- new_queries: with SEARCH_REQUIRED, up to {max_queries} web search queries for exactly what is
  missing; empty with READY.
{open_topics}
{evidence}"""


def build_analyze_findings(
    *,
    brief: str,
    sources: str,
    findings: str,
    open_topics: list[str],
    max_queries: int,
    language: str,
    today: str,
) -> Messages:
    system = f"You are a rigorous research analyst.\n{preamble(today, language)}"
    topics = (
        "Planned topics no researcher found anything for: " + "; ".join(open_topics) + ".\n"
        if open_topics
        else ""
    )
    text = ANALYZE_FINDINGS.format(
        evidence=evidence_block(brief, sources, findings),
        open_topics=topics,
        max_queries=max_queries,
    )
    return messages(system, text)
