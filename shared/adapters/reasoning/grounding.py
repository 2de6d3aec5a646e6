"""What a model may get wrong, corrected in one place.

The LLM is asked for *drafts* (no URLs lists, numbering or sources of its own
making where we can set them ourselves); these functions turn drafts into the
public models and enforce the Reasoner rules: cite only URLs that were handed
in, only ``[n]`` of known sources, ids within the plan, scrape only URLs that
searches returned.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from shared.adapters.reasoning.context_budget import truncate
from shared.adapters.report.citations import (
    dedupe_sentences,
    enforce_citations,
    strip_unknown_citations,
)
from shared.adapters.report.limits_text import say
from shared.core.report_models import FinalReport, ReportMaterial, ReportSection
from shared.core.research_models import (
    AgentAction,
    AgentState,
    Confidence,
    Finding,
    KeyFinding,
    ResearchPlan,
    SupervisorReview,
)
from shared.core.source_models import Page, Source
from shared.tools.lexical import unique_texts


class FindingDraft(BaseModel):
    """The facts first, the summary drawn from them, the confidence last."""

    key_findings: list[KeyFinding]
    notes: list[str]
    summary: str
    confidence: Confidence


class ReportDraft(BaseModel):
    title: str
    executive_summary: str
    sections: list[ReportSection] = Field(min_length=3)
    conclusion: str
    confidence_level: Confidence
    follow_up_questions: list[str]
    methodology_note: str = ""


def cited_report(draft: ReportDraft, material: ReportMaterial) -> FinalReport:
    """The public report: only citations of ``material.sources`` kept, cited sources listed."""
    report = FinalReport(
        title=draft.title,
        executive_summary=draft.executive_summary,
        sections=draft.sections,
        conclusion=draft.conclusion,
        sources=[],
        confidence_level=draft.confidence_level,
        follow_up_questions=unique_texts(draft.follow_up_questions)[:5],
        language=material.context.language,
        methodology_note=strip_unknown_citations(draft.methodology_note, set()),
    )
    checked, _problems = enforce_citations(dedupe_sentences(report), material.sources)
    if checked.sources:
        return checked
    # Nothing could be searched or read (a provider down, every page refused): the
    # text rests on the model alone, and the reader must not take it as researched.
    warning = say(material.context.language, "unsourced")
    return checked.model_copy(
        update={"confidence_level": "low", "warnings": [*checked.warnings, warning]}
    )


def grounded_finding(base: Finding, draft: FindingDraft, pages: list[Page]) -> Finding:
    """Key findings keep only URLs of ``pages``; a key finding left with none is dropped."""
    canonical = {p.url: p.url for p in pages}
    canonical.update({p.final_url: p.url for p in pages if p.final_url})
    key_findings = []
    for key in draft.key_findings:
        urls = unique_texts([canonical[u] for u in key.source_urls if u in canonical])
        if urls and key.text.strip():
            key_findings.append(KeyFinding(text=key.text.strip(), source_urls=urls))
    cited = {u for k in key_findings for u in k.source_urls}
    sources = [
        Source(url=p.url, title=p.title, snippet=truncate(p.text, 300))
        for p in pages
        if p.url in cited
    ]
    return base.model_copy(
        update={
            "summary": draft.summary,
            "key_findings": key_findings,
            "sources": sources,
            "confidence": draft.confidence if key_findings else "low",
            "notes": draft.notes[:5],
        }
    )


def checked_review(review: SupervisorReview, plan: ResearchPlan, agents: int) -> SupervisorReview:
    topic_ids = {t.id for t in plan.topics}
    coverage = [c for c in review.coverage if c.topic_id in topic_ids]
    todos = []
    for todo in review.new_todos:
        if todo.topic_id not in topic_ids or not todo.instruction.strip():
            continue
        if todo.agent_id is not None and not 1 <= todo.agent_id <= agents:
            todo = todo.model_copy(update={"agent_id": None})
        todos.append(todo)
    return review.model_copy(update={"coverage": coverage, "new_todos": todos[: len(plan.topics)]})


def safe_action(action: AgentAction, state: AgentState) -> AgentAction:
    """Scrape only URLs the searches returned (a page cannot steer the agent elsewhere).

    The last allowed step is always ``done`` (or a question to the supervisor, which
    ends the todo as ``done`` does).
    """
    if state.step + 1 >= state.max_steps and action.tool not in ("done", "ask_supervisor"):
        # the last step: nothing after it could use a search or a page
        return AgentAction(thought=f"{action.thought} (last step)".strip(), tool="done")
    if action.tool == "web_search" and not action.argument.strip():
        return action.model_copy(update={"argument": state.todo.topic})
    if action.tool != "scrape_url":
        return action
    seen = {r.url for obs in state.observations for r in obs.results}
    if action.argument.strip() in seen:
        return action.model_copy(update={"argument": action.argument.strip()})
    query = state.todo.queries[0] if state.todo.queries else state.todo.topic
    thought = f"{action.thought} (URL not among search results; searching instead)".strip()
    return AgentAction(thought=thought, tool="web_search", argument=query)
