"""The shapes of a deep research session's memory files, and how they are written.

    {session}/main.md               "# Research Session - Main Index": query, id, plan, key insights
    {session}/agents/agent_N.md     profile, todos (pending / in_progress / done), notes
    {session}/items/item_N.md|json  one researcher's finding with its sources
    {session}/supervisor.md         one entry per review
    {session}/draft_report.md       "# Research Report Draft" + "## {section} - {timestamp}" entries
    {session}/analysis.json         the query analysis and the plan (the report's length and shape)

Appends carry an entry id (``review-3``, ``todo-2``...) so a retried activity
never writes the same entry twice. Only the researcher of agent N rewrites
``agent_N.md`` (one todo per agent at a time), so it has a single writer.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from pydantic import BaseModel

from shared.adapters.report.citations import CITATION_RE
from shared.adapters.stores.base import MemoryStore
from shared.core.errors import NotFoundError
from shared.core.research_models import (
    AgentProfile,
    Finding,
    QueryAnalysis,
    ResearchContext,
    ResearchPlan,
    ResearchTopic,
    SupervisorReview,
    Todo,
)
from shared.core.source_models import TimeRange

MAIN = "main.md"
DRAFT = "draft_report.md"
SUPERVISOR = "supervisor.md"
DEEP_SEARCH = "deep_search.md"
ANALYSIS = "analysis.json"
INSIGHTS_HEADING = "## Key Insights"
NOTES_HEADING = "## Notes"
PRIORITY_WORDS = ("high", "high", "medium", "low", "low")  # by ResearchTopic.priority 1-5
SOURCES_PER_QUERY = 5  # a researcher reads about this many pages per search it runs
_TODO_MARK = {"pending": " ", "in_progress": "~", "done": "x", "failed": "!", "dropped": "-"}


def now_text() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def agent_file(agent_id: int) -> str:
    return f"agents/agent_{agent_id}.md"


def write_main(memory: MemoryStore, context: ResearchContext, plan: ResearchPlan) -> None:
    lines = [
        "# Research Session - Main Index",
        "",
        f"**Query:** {context.query}",
        f"**Session ID:** {context.session_id}",
        f"**Language:** {context.language}",
        "",
        "## Research Plan",
        "",
        plan.summary,
        "",
    ]
    for topic in plan.topics:
        lines.append(f"- {topic_line(topic)}")
        lines += [f"  - search: {q}" for q in topic.queries]
    lines += ["", INSIGHTS_HEADING, ""]
    memory.write(context.session_id, MAIN, "\n".join(lines) + "\n", "text/markdown")


def topic_line(topic: ResearchTopic) -> str:
    """The spec's plan line: ``**Topic**: why (Priority: high, Estimated sources: 10)``.

    Priority 1-5 (1 first) reads as high / medium / low; the plan has no source
    estimate of its own, so it is ``SOURCES_PER_QUERY`` per planned search.
    """
    estimate = max(1, len(topic.queries)) * SOURCES_PER_QUERY
    why = f": {topic.rationale}" if topic.rationale else ""
    level = PRIORITY_WORDS[min(topic.priority, len(PRIORITY_WORDS)) - 1]
    return f"**{topic.title}**{why} (Priority: {level}, Estimated sources: {estimate})"


def write_headers(memory: MemoryStore, context: ResearchContext) -> None:
    """Start draft_report.md and supervisor.md (kept if a retried activity finds them)."""
    sid = context.session_id
    if not memory.exists(sid, DRAFT):
        text = (
            f"# Research Report Draft\n\n**Query:** {context.query}\n\n"
            f"**Started:** {now_text()}\n\n## Overview\n\n{overview(context)}\n\n"
        )
        memory.write(sid, DRAFT, text, "text/markdown")
    if not memory.exists(sid, SUPERVISOR):
        memory.write(
            sid,
            SUPERVISOR,
            f"# Supervisor Notes\n\n**Query:** {context.query}\n\n",
            "text/markdown",
        )


def overview(context: ResearchContext) -> str:
    """The deep search summary without its ``[n]`` markers: they number the deep search's
    own sources, and left in the draft they would read as the report's numbering."""
    if not context.deep_search_summary.strip():
        return context.query
    text = re.sub(r"[ \t]+([.!?…,;:])", r"\1", CITATION_RE.sub("", context.deep_search_summary))
    return f"{text.strip()}\n\n(Summary of the deep search; its sources are in {DEEP_SEARCH}.)"


def write_agent(
    memory: MemoryStore, session_id: str, profile: AgentProfile, todos: list[Todo], notes: str = ""
) -> None:
    lines = [
        f"# Agent {profile.agent_id}: {profile.name}",
        "",
        f"- **Specialization:** {profile.specialization}",
        f"- **Working style:** {profile.working_style}",
        f"- **Source preferences:** {', '.join(profile.source_preferences) or 'any'}",
        "",
        "## Todos",
        "",
    ]
    lines += [f"- [{_TODO_MARK[t.status]}] {t.id} ({t.status}): {t.topic}" for t in todos]
    lines += ["", NOTES_HEADING, ""]
    memory.write(
        session_id, agent_file(profile.agent_id), "\n".join(lines) + "\n" + notes, "text/markdown"
    )


def agent_notes(memory: MemoryStore, session_id: str, agent_id: int) -> str:
    """The notes part of an agent file (kept when the todo list is rewritten)."""
    try:
        text = memory.read_text(session_id, agent_file(agent_id))
    except NotFoundError:
        return ""
    _, _, notes = text.partition(NOTES_HEADING + "\n")
    return notes.lstrip("\n")


def last_notes(notes: str, limit: int = 10) -> list[str]:
    entries = [e.strip() for e in re.split(r"\n(?=### )", notes) if e.strip().startswith("### ")]
    return [re.sub(r"<!-- entry:[^>]* -->", "", e).strip() for e in entries[-limit:]]


def key_insights(memory: MemoryStore, session_id: str) -> list[str]:
    try:
        text = memory.read_text(session_id, MAIN)
    except NotFoundError:
        return []
    _, _, tail = text.partition(INSIGHTS_HEADING)
    return [line[2:].strip() for line in tail.splitlines() if line.startswith("- ")][-15:]


def read_draft(memory: MemoryStore, session_id: str) -> str:
    """draft_report.md as a reader sees it: entry markers and timestamps removed."""
    try:
        text = memory.read_text(session_id, DRAFT)
    except NotFoundError:
        return ""
    text = re.sub(r"<!-- entry:[^>]* -->\n?", "", text)
    return re.sub(r"(?m)^(## .+?) - \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$", r"\1", text)


class PlannedResearch(BaseModel):
    """analysis.json: the query analysis and the plan, read again by the report writer
    (length and shape follow the analysis; unresearched plan topics are named)."""

    analysis: QueryAnalysis
    plan: ResearchPlan
    # what a later session of the chat reuses it by (``decompositions.py``)
    question_key: str = ""
    time_range: TimeRange | None = None


def write_analysis(memory: MemoryStore, session_id: str, planned: PlannedResearch) -> None:
    memory.write(session_id, ANALYSIS, planned.model_dump_json(), "application/json")


def read_analysis(memory: MemoryStore, session_id: str) -> PlannedResearch | None:
    """None for sessions planned before analysis.json existed (they get the long report)."""
    try:
        return PlannedResearch.model_validate_json(memory.read(session_id, ANALYSIS))
    except NotFoundError:
        return None


def finding_markdown(finding: Finding) -> str:
    lines = [
        f"# Finding: {finding.topic}",
        "",
        f"Agent {finding.agent_id}, todo {finding.todo_id}, confidence {finding.confidence}",
        "",
        finding.summary,
        "",
        "## Key findings",
        "",
    ]
    lines += [f"- {k.text} ({', '.join(k.source_urls)})" for k in finding.key_findings]
    lines += ["", "## Sources", ""] + [f"- [{s.title or s.url}]({s.url})" for s in finding.sources]
    if finding.notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in finding.notes]
    return "\n".join(lines) + "\n"


def append_review(
    memory: MemoryStore, context: ResearchContext, review: SupervisorReview, review_n: int
) -> None:
    sid, stamp = context.session_id, now_text()
    coverage = "\n".join(
        f"- topic {c.topic_id}: {c.status} ({c.score:.1f}) — {c.evidence}"
        + (f" Gaps: {'; '.join(c.gaps)}" if c.gaps else "")
        for c in review.coverage
    )
    todos = "\n".join(f"- new todo (topic {t.topic_id}): {t.instruction}" for t in review.new_todos)
    entry = (
        f"## Review {review_n} - {stamp}\n\n**Decision:** {review.decision}\n\n"
        f"{review.notes}\n\n{coverage}\n{todos}\n\n"
    )
    memory.append(sid, SUPERVISOR, f"review-{review_n}", entry)
    if review.draft_section.strip():
        title = review.draft_section_title or f"Review {review_n}"
        memory.append(
            sid,
            DRAFT,
            f"review-{review_n}",
            f"## {title} - {stamp}\n\n{review.draft_section.strip()}\n\n",
        )
    if review.key_insights:
        insights = "".join(f"- {i}\n" for i in review.key_insights)
        memory.append(sid, MAIN, f"insights-{review_n}", insights)
