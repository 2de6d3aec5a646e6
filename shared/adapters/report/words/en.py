"""English words of the report: its labels (``markdown.py``) and its own lines (``limits_text.py``).

Every language has the English keys with the same ``{placeholders}`` (a unit test
checks it), so a key added to one module must be added to each of them.
"""

from __future__ import annotations

from typing import Final

BUDGET: Final = "the token or cost budget was reached"

TEXT: Final[dict[str, str]] = {
    "phase_failed": "the {phase} phase failed ({error})",
    "deep_search_failed": "the deep search failed: {error}",
    "agent_failed": "agent {agent_id} failed on '{topic}': {error}",
    "topic_not_researched": "topic {topic_id} ({topic}) was planned but not researched",
    "budget_no_research": "{budget}: no research ran: the budget left room only for the report",
    "budget_topics_skipped": "{budget}: not researched: {topics}",
    "budget_stopped": "{budget}: research stopped",
    "budget_reviews_skipped": "{budget}: the supervisor's reviews were skipped",
    "based_only": "The report is based only on the evidence gathered before these limits.",
    "clarification_unanswered": (
        "The clarifying questions went unanswered before the timeout; "
        "the research used the original question as asked."
    ),
    "thin": "The evidence was thin: the report is shorter than {chars} characters.",
    "critic": "Critic: {issue}",
    "plan_approved": "The research plan was approved by the user before the research began.",
    "plan_edited": (
        "The research plan was edited by the user before the research began: {changes}."
    ),
    "plan_timed_out": (
        "Nobody approved the research plan before the timeout; "
        "the research followed the plan as proposed."
    ),
    "methodology": (
        "{findings} research findings from {sources} sources were analysed before "
        "writing; the analyst's reasoning: {reasoning}. {searches} A critic checks each "
        "version for its reasoning and its sources."
    ),
    "methodology_searched": "One more round of searches ran for what the analysis found missing.",
    "reasoning_induction": "induction (general conclusions from several sources)",
    "reasoning_deduction": "deduction (from established facts)",
    "reasoning_abduction": "abduction (the best explanation among alternatives)",
    "reasoning_mixed": "mixed (induction, deduction and abduction)",
    "minimal_title": "Incomplete research: {query}",
    "minimal_summary": (
        "The research could not be completed. This minimal report records "
        "what happened so that nothing is lost. Cause: {cause}"
    ),
    "minimal_asked": "What was asked",
    "minimal_failed": "What failed",
    "minimal_found": "What was found before the failure",
    "minimal_nothing": "No findings were recorded.",
    "minimal_conclusion": (
        "Retry the research; the session keeps its memory files for inspection."
    ),
    "minimal_note": "Minimal report: {cause}",
    "draft_note": (
        "The report writer failed; this is the research draft as the "
        "supervisor wrote it during the research."
    ),
    "draft_conclusion": (
        "This report is the research draft, not a finished report: the writer could not finish it."
    ),
    "citations_removed": (
        "citations to sources not fetched in this session were removed ({numbers})"
    ),
    "citations_dropped": "{count} listed source(s) not fetched in this session were dropped",
    "citations_checked": "Citation check: {parts}; confidence lowered.",
    "unsourced": "No source could be read for this report: it is not backed by citations.",
    # the corrective judge, per topic (shared/usecases/research/coverage.py)
    "topic_on_collection": (
        "“{topic}” rests on your collections alone: they cover it ({quotes} quoted "
        "passages as evidence)."
    ),
    "topic_on_web": (
        "“{topic}” was researched on the web too: your collections do not cover it "
        "({quotes} quoted passages as evidence)."
    ),
    "topic_not_covered": (
        "“{topic}” rests on your collections, which do not cover it ({quotes} quoted "
        "passages as evidence); the web was left out on request."
    ),
    "pages_navigation": "The pages found were mostly navigation or tables of contents.",
    "pages_lack": "Not in the pages found, so perhaps not in the answer either: {wanted}.",
    "lack_definition": "a definition",
    "lack_steps": "step-by-step instructions",
    "lack_code": "code examples",
    "topics_uncovered": "Not covered by the pages found: {topics}.",
}

# The phases a status names (``Progress.phase``), as a reader would call them.
PHASES: Final[dict[str, str]] = {
    "deep_search": "deep search",
    "clarifying": "clarification",
    "waiting_clarification": "clarification",
    "planning": "planning",
    "waiting_plan_approval": "plan approval",
    "researching": "research",
    "supervising": "supervision",
    "compressing": "compression",
    "writing_report": "report writing",
    "reviewing": "review",
    "analyst_analyzing": "analysis",
    "critic_reviewing": "critic's review",
    "rendering_pdf": "PDF rendering",
}

# The Markdown's fixed headings and labels (``shared/adapters/report/markdown.py``).
LABELS: Final[dict[str, str]] = {
    "query": "Query",
    "date": "Date",
    "mode": "Mode",
    "executive_summary": "Executive Summary",
    "conclusion": "Conclusion",
    "sources": "Sources",
    "follow_up": "Follow-up Questions",
    "key_points": "Key Points",
    "answer": "Answer",
    "note": "Note",
    "limitations": "Limitations",
    "methodology": "Methodology",
    "confidence": "Confidence",
    "quality": "Research Quality Score",
    "also_consulted": "Also consulted",
    "follows_up": "Follows up",
    "tier": "tier",
    "high": "high",
    "medium": "medium",
    "low": "low",
}
