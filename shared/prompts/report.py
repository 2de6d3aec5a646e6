"""Deep research: the final report."""

from __future__ import annotations

from shared.prompts.framing import Messages, messages, preamble

REPORT_SYSTEM = """You are a senior research writer producing a complete, well-sourced report.
{preamble}"""

WRITE_REPORT = """Write the final research report for the request below.

Material, in order of authority:
1. {primary_label} (the primary source: keep its substance, structure and every cited
   fact; turn its source links into [n] citations using the numbered source list);
2. the agents' key findings, each already tagged with its source numbers;
3. the numbered sources.

Requirements:
- length: 3000-8000+ words in total;
- title: specific to the request;
- executive_summary: 400-600 words, the answer first, then the main evidence;
- sections: 4-7 sections of 500-1200 words each, each with a heading and Markdown
  content; analysis, not a list of summaries; compare sources and say where they
  disagree;
- conclusion: 400-600 words: the answer, its limits, what remains open;
- cite every factual claim as [n], where n is a number from the source list below; use
  ONLY those numbers; never invent a source, a number or a URL; use every source that
  supports something;
- confidence_level: high, medium or low, from the strength and agreement of the sources;
- follow_up_questions: 3-5 questions the reader may want researched next.
{clarification_note}{gaps_note}{critique}

Research request:
{brief}

<primary kind="{primary_kind}">
{primary}
</primary>

Key findings:
{findings}

Numbered sources:
{sources}"""

PRIMARY_LABELS = {
    "draft": "the draft report written during the research",
    "main": "the research index (main.md) with the supervisor's insights",
    "findings": "the agents' findings",
}

UNANSWERED_NOTE = (
    "\n- the user did not answer the clarifying questions: say so briefly in the "
    "executive summary and state the assumptions you made."
)

GAPS_NOTE = """
- the research fell short here; say so where it matters and do not claim coverage of
  these (they are also listed for the reader in a Limitations section added after you):
{gaps}"""

CRITIQUE_NOTE = """
A reviewer checked an earlier version ({verdict}). Fix these issues:
{issues}"""


def build_write_report(
    *,
    brief: str,
    primary: str,
    primary_kind: str,
    findings: str,
    sources: str,
    clarification_unanswered: bool,
    critique_verdict: str | None,
    critique_issues: list[str],
    language: str,
    today: str,
    gaps: list[str] | None = None,
) -> Messages:
    critique = ""
    if critique_verdict and critique_issues:
        issues = "\n".join(f"- {i}" for i in critique_issues)
        critique = CRITIQUE_NOTE.format(verdict=critique_verdict, issues=issues)
    text = WRITE_REPORT.format(
        primary_label=PRIMARY_LABELS.get(primary_kind, PRIMARY_LABELS["findings"]),
        clarification_note=UNANSWERED_NOTE if clarification_unanswered else "",
        gaps_note=GAPS_NOTE.format(gaps="\n".join(f"  - {g}" for g in gaps)) if gaps else "",
        critique=critique,
        brief=brief,
        primary_kind=primary_kind,
        primary=primary or "(none)",
        findings=findings or "(none)",
        sources=sources or "(none)",
    )
    return messages(REPORT_SYSTEM.format(preamble=preamble(today, language)), text)
