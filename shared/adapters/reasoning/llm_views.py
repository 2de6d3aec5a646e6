"""How the LLM sees research state: models rendered as compact prompt text.

Everything here is formatting for ``LLMReasoner``: plans, todos, findings,
observations and reports become short text blocks, with untrusted web text
delimited (``context_budget``) and every block kept within the context budget.
"""

from __future__ import annotations

from collections.abc import Sequence

from shared.adapters.reasoning.context_budget import (
    SourceText,
    defuse,
    format_evidence,
    format_snippets,
    keep_last_within,
    result_block,
    truncate,
)
from shared.core.analysis_models import Analysis
from shared.core.report_models import FinalReport
from shared.core.research_models import AgentState, Finding, ResearchContext, ResearchPlan, Todo
from shared.core.source_models import PageSummary, Source, SourceExcerpt, TimeRange
from shared.tools.prompts.agent import build_agent_system
from shared.tools.prompts.framing import research_brief, time_range_line

EVIDENCE_PER_SOURCE = 1800  # chars of one source's passages a writer or critic may get


def agent_system(state: AgentState, today: str) -> str:
    """A researcher's standing instructions: who it is, in the user's language."""
    p = state.profile
    return build_agent_system(
        p.name,
        p.specialization,
        p.working_style,
        p.source_preferences,
        state.context.language,
        today,
    )


def brief_of(context: ResearchContext, max_chars: int) -> str:
    """The research request, deep search result and clarifications (never chat history).

    All three are untrusted (the deep search was written from web pages), so
    tag look-alikes in them are defused like page text.
    """
    summary, period = context.deep_search_summary, context.time_range
    return research_brief(
        defuse(context.query),
        defuse(truncate(summary, max_chars // 4)) if summary else "",
        [defuse(q) for q in context.clarification_questions],
        [defuse(a) for a in context.clarification_answers],
        context.clarification_timed_out,
        context.source_policy,
        defuse(context.replan_reason),
        period_line(period),
    )


def period_line(time_range: TimeRange | None) -> str:
    """The time-range line of a prompt; empty when the question names no period."""
    return time_range_line(time_range.start, time_range.end) if time_range else ""


def plan_text(plan: ResearchPlan) -> str:
    lines = [plan.summary] if plan.summary else []
    for topic in plan.topics:
        queries = "; ".join(topic.queries)
        lines.append(f"- topic {topic.id} (priority {topic.priority}): {topic.title}")
        if topic.rationale:
            lines.append(f"  why: {topic.rationale}")
        if queries:
            lines.append(f"  queries: {queries}")
    return "\n".join(lines)


def todos_text(todos: Sequence[Todo]) -> str:
    return "\n".join(
        f"- [{t.status}] {t.id} agent {t.agent_id}, topic {t.topic_id} ({t.topic}): "
        f"{t.instruction or t.topic}"
        for t in todos
    )


def finding_text(finding: Finding, numbers: dict[str, int] | None = None) -> str:
    """A finding with its key findings; sources as URLs, or as ``[n]`` when numbered."""
    head = f"Agent {finding.agent_id}, topic {finding.topic_id} ({finding.topic}), "
    head += f"confidence {finding.confidence}:\n{defuse(finding.summary)}"
    lines = [head]
    for key in finding.key_findings:
        if numbers is None:
            refs = " ".join(f"<{url}>" for url in key.source_urls)
        else:
            refs = "".join(f"[{numbers[u]}]" for u in key.source_urls if u in numbers)
        lines.append(f"- {defuse(key.text)} {refs}".rstrip())
    lines.extend(f"  note: {defuse(note)}" for note in finding.notes[:3])
    return "\n".join(lines)


def findings_text(
    findings: Sequence[Finding], max_chars: int, numbers: dict[str, int] | None = None
) -> str:
    """Findings within ``max_chars``; the newest are kept when they do not all fit."""
    blocks = [finding_text(f, numbers) for f in findings if not f.error]
    return keep_last_within(blocks, max_chars)


def observations_text(state: AgentState, max_chars: int) -> str:
    blocks = []
    for i, obs in enumerate(state.observations, start=1):
        header = f'<observation step="{i}" tool="{obs.tool}">argument: {defuse(obs.argument)}'
        body = [result_block(r.url, r.title, r.snippet) for r in obs.results]
        if obs.passages:
            body += [f'<page url="{url}">{defuse(obs.passages)}</page>' for url in obs.page_urls]
        else:
            body += [f'<page url="{url}"/>' for url in obs.page_urls]
        if obs.note:
            body.append(f"note: {defuse(obs.note)}")
        if not body:
            body.append("(no results)")
        blocks.append("\n".join([header, *body, "</observation>"]))
    return keep_last_within(blocks, max_chars)


def summaries_context(summaries: Sequence[PageSummary], max_chars: int) -> str:
    """Summaries numbered by position (1-based): the ``[n]`` the answer may cite."""
    sources = [
        SourceText(i, s.url, _summary_body(s), s.title, s.tier)
        for i, s in enumerate(summaries, start=1)
    ]
    return format_snippets(sources, max_chars)


def sources_context(sources: Sequence[Source], max_chars: int) -> str:
    return format_snippets(
        [SourceText(s.n, s.url, s.snippet, s.title, s.tier) for s in sources], max_chars
    )


def evidence_context(
    sources: Sequence[Source], excerpts: Sequence[SourceExcerpt], max_chars: int
) -> str:
    """Every numbered source with its passages (or its snippet when none were kept),
    its tier, type and date, sharing ``max_chars``: what the writer and critic cite from."""
    by_url = {e.url: e for e in excerpts}
    texts = []
    for s in sources:
        excerpt = by_url.get(s.url)
        text = excerpt.text if excerpt else s.snippet
        published = excerpt.published if excerpt else None
        texts.append(SourceText(s.n, s.url, text, s.title, s.tier, published))
    return format_evidence(texts, max_chars, EVIDENCE_PER_SOURCE)


def report_text(report: FinalReport) -> str:
    parts = [f"# {report.title}", "## Executive summary", report.executive_summary]
    for section in report.sections:
        parts += [f"## {section.heading}", section.content]
    parts += ["## Conclusion", report.conclusion]
    return "\n\n".join(parts)


def _summary_body(summary: PageSummary) -> str:
    quotes = " ".join(summary.relevant_sentences)
    return f"{summary.summary} {quotes}".strip()


def analysis_text(analysis: Analysis) -> str:
    """The analyst's conclusions as the writer reads them."""
    lines = [f"- {c}" for c in analysis.core_findings]
    lines += [f"Inference ({analysis.reasoning_type}): {analysis.logical_inference}"]
    lines += [f"Missing: {m}" for m in analysis.missing_information]
    return "\n".join(lines)
