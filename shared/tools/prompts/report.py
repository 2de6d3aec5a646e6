"""Deep research: the final report, its length and shape, and the rewrite after a critique.

Length and shape follow the query analysis: a simple question gets a short
report, a complex one a long one; a comparison is laid out as a comparison.
"""

from __future__ import annotations

from dataclasses import dataclass

from shared.tools.prompts.framing import SOURCE_ATTRIBUTES_NOTE, Messages, messages, preamble

REPORT_SYSTEM = """You are a senior research writer producing a complete, well-sourced report.
{preamble}"""

WRITE_REPORT = """Write the final research report for the request below.

Material, in order of authority:
1. {primary_label};
2. the numbered sources with their passages, copied from the pages: the evidence;
3. the agents' key findings, each already tagged with its source numbers.

Requirements:
- length: {words_min}-{words_max} words in total; the question decides, not the
  material: do not pad a simple answer, do not cut a complex one;
- title: specific to the request;
- executive_summary: {summary_min}-{summary_max} words, the answer first, then the main
  evidence;
- sections: {sections_min}-{sections_max} sections of {section_min}-{section_max} words
  each, each with a heading and Markdown content; {structure};
- conclusion: {summary_min}-{summary_max} words: the answer, its limits, what remains open;
- build on the passages: figures, dates, names and quoted wording from them, not general
  statements; quote verbatim in the source's language and explain in the report's;
- cite every factual claim as [n], where n is a number from the source list below; use
  ONLY those numbers; never invent a source, a number or a URL; use every source that
  supports something;
- {source_note}
- confidence_level: high, medium or low, from the strength and agreement of the sources;
- follow_up_questions: 3-5 questions the reader may want researched next;
- methodology_note: 2-4 sentences on how the answer was reached: what was researched,
  the analyst's reasoning type and what that reasoning cannot establish; no citations.
{clarification_note}{gaps_note}{critique}

Research request:
{brief}

<primary kind="{primary_kind}">
{primary}
</primary>

The analyst's reading of the findings (build on it; where it names missing information,
say so in the report instead of filling the gap):
<analysis>
{analysis}
</analysis>

Key insights from the research index (main.md), read together with the text above:
<insights>
{insights}
</insights>

Numbered sources:
{sources}

Key findings:
<findings>
{findings}
</findings>"""

PRIMARY_LABELS = {
    "reviewed": (
        "the report a reviewer checked (the primary source: edit it, do not start over; "
        "fix every issue listed below, keep what was right, and keep its [n] citations)"
    ),
    "draft": (
        "the draft report written during the research (the primary source: keep its "
        "substance and every cited fact, but reorganise it into the sections asked for, "
        "merge what repeats, and turn its source links into [n] citations using the "
        "numbered source list)"
    ),
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

CONTRAST_NOTE = """
- the user chose the monitor source policy: include a section that contrasts what the
  official sources (tier 1) say with what the community sources (tier 5) say: where they
  agree, where they differ, each side cited; if one side has no source, say so there."""

CRITIQUE_NOTE = """
A reviewer checked the report above ({verdict}). Fix these issues:
{issues}"""


@dataclass(frozen=True)
class ReportShape:
    """How long a report is and how it is laid out, from the query analysis."""

    words: tuple[int, int]
    sections: tuple[int, int]
    section_words: tuple[int, int]
    summary_words: tuple[int, int]
    structure: str


LENGTHS = {
    # complexity: (words, sections, words per section, summary and conclusion words)
    "simple": ((700, 1500), (3, 4), (150, 350), (80, 150)),
    "moderate": ((1500, 3500), (3, 5), (300, 700), (150, 300)),
    "complex": ((3000, 8000), (4, 7), (500, 1200), (400, 600)),
}

STRUCTURES = {
    "comparison": (
        "lay it out as a comparison: one section per criterion, each contrasting the "
        "options side by side, and a Markdown table of the options against the criteria "
        "in one of them"
    ),
    "how_to": "steps in the order a reader takes them: prerequisites first, pitfalls last",
    "list": "one entry per item, each with its evidence, most important first",
    "why": "one section per cause with its evidence, then how the causes interact",
    "fact": "the fact and its evidence first, then its context and caveats",
    "definition": "the definition first, then its scope, examples and edge cases",
}
DEFAULT_STRUCTURE = "analysis, not a list of summaries; compare sources and say where they disagree"


def report_shape(complexity: str = "complex", query_type: str = "open") -> ReportShape:
    """The shape the analysis calls for; an unknown analysis gets the long, open one."""
    words, sections, section_words, summary = LENGTHS.get(complexity, LENGTHS["complex"])
    return ReportShape(
        words, sections, section_words, summary, STRUCTURES.get(query_type, DEFAULT_STRUCTURE)
    )


def build_write_report(
    *,
    brief: str,
    primary: str,
    primary_kind: str,
    findings: str,
    insights: list[str] | None = None,
    sources: str,
    clarification_unanswered: bool,
    critique_verdict: str | None,
    critique_issues: list[str],
    language: str,
    today: str,
    gaps: list[str] | None = None,
    shape: ReportShape | None = None,
    contrast: bool = False,
    analysis: str = "",
) -> Messages:
    shape = shape or report_shape()
    critique = ""
    if critique_verdict and critique_issues:
        issues = "\n".join(f"- {i}" for i in critique_issues)
        critique = CRITIQUE_NOTE.format(verdict=critique_verdict, issues=issues)
    text = WRITE_REPORT.format(
        primary_label=PRIMARY_LABELS.get(primary_kind, PRIMARY_LABELS["findings"]),
        words_min=shape.words[0],
        words_max=shape.words[1],
        sections_min=shape.sections[0],
        sections_max=shape.sections[1],
        section_min=shape.section_words[0],
        section_max=shape.section_words[1],
        summary_min=shape.summary_words[0],
        summary_max=shape.summary_words[1],
        structure=shape.structure,
        source_note=SOURCE_ATTRIBUTES_NOTE,
        clarification_note=UNANSWERED_NOTE if clarification_unanswered else "",
        gaps_note=(GAPS_NOTE.format(gaps="\n".join(f"  - {g}" for g in gaps)) if gaps else "")
        + (CONTRAST_NOTE if contrast else ""),
        critique=critique,
        brief=brief,
        primary_kind=primary_kind,
        primary=primary or "(none)",
        insights="\n".join(f"- {i}" for i in insights or []) or "(none)",
        analysis=analysis or "(none)",
        findings=findings or "(none)",
        sources=sources or "(none)",
    )
    return messages(REPORT_SYSTEM.format(preamble=preamble(today, language)), text)
