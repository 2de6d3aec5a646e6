"""The report writer's and the critic's prompts, from the report material.

Both read the same evidence (the sources' passages, the findings in the
compressed numbering) under the same context budget; a long draft or report
is cut once, here, by ``trim_draft``. The LLM reasoner asks the model and
grounds the reply (``grounding``).
"""

from __future__ import annotations

from shared.adapters.reasoning import llm_views as views
from shared.adapters.reasoning.context_budget import REPORT_FINDINGS_CHARS, defuse, trim_draft
from shared.core.report_models import Critique, FinalReport, ReportMaterial
from shared.tools.prompts import critic, report
from shared.tools.prompts.framing import Messages

CRITIC_POLICY = {
    "discovery": "cite only the numbered sources; prefer primary and reputable sources",
    "strict": "cite only the numbered sources, official and primary ones (tiers 1-2)",
    "monitor": "cite only the numbered sources; the report must contrast what official "
    "(tier 1) and community (tier 5) sources say, each side cited: flag it when it does not",
}


def critique_messages(
    report_: FinalReport,
    material: ReportMaterial,
    budget: int,
    today: str,
    draft_chars: int | None = None,
) -> Messages:
    """The critic sees the report in the evidence's numbering, beside that evidence."""
    numbers = {s.url: s.n for s in material.sources}
    return critic.build_critique(
        brief=views.brief_of(material.context, budget),
        sources=views.evidence_context(material.sources, material.excerpts, budget),
        findings=views.findings_text(material.findings, budget // 2, numbers),
        report=defuse(trim_draft(views.report_text(report_), limit=draft_chars)),
        policy=CRITIC_POLICY[material.context.source_policy],
        language=material.context.language,
        today=today,
    )


def report_shape(material: ReportMaterial) -> report.ReportShape:
    """The length and structure the analysis calls for (the long, open shape without one)."""
    analysis = material.analysis
    if analysis is None:
        return report.report_shape()
    return report.report_shape(analysis.complexity, analysis.query_type)


def write_report_messages(
    material: ReportMaterial,
    shape: report.ReportShape,
    budget: int,
    today: str,
    draft_chars: int | None = None,
) -> Messages:
    """The writer gets the primary text (cut once) beside main.md's key insights, the
    findings (up to ``REPORT_FINDINGS_CHARS``), the passages, the gaps and the critique
    of the version it rewrites."""
    numbers = {s.url: s.n for s in material.sources}
    context = material.context
    critique = material.critique
    return report.build_write_report(
        brief=views.brief_of(context, budget),
        primary=defuse(trim_draft(material.primary, limit=draft_chars)),
        primary_kind=material.primary_kind,
        findings=views.findings_text(
            material.findings, min(budget, REPORT_FINDINGS_CHARS), numbers
        ),
        insights=[defuse(i) for i in material.insights],
        sources=views.evidence_context(material.sources, material.excerpts, budget),
        clarification_unanswered=bool(
            context.clarification_questions
            and (context.clarification_timed_out or not context.clarification_answers)
        ),
        critique_verdict=critique.verdict if critique else None,
        critique_issues=critique_points(critique),
        language=context.language,
        today=today,
        gaps=material.gaps,
        shape=shape,
        contrast=context.source_policy == "monitor",
        analysis=defuse(views.analysis_text(material.analyst)) if material.analyst else "",
    )


def critique_points(critique: Critique | None) -> list[str]:
    """Everything the critic asks the rewrite to fix: issues, then the reasoning and the
    sources it faulted, then its suggestions."""
    if critique is None:
        return []
    gaps = [f"logic: {g}" for g in critique.logical_gaps]
    sources = [f"sources: {s}" for s in critique.source_issues]
    fixes = [f"suggestion: {s}" for s in critique.suggestions]
    return [*critique.issues, *gaps, *sources, *fixes]
