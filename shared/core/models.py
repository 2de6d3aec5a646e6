"""Schemas the research phases exchange with activities, stores and the HTTP API.

Activity inputs and outputs are ``model_dump(mode="json")`` of these models
and stay small: big text (pages, findings, drafts, reports) lives in the
MemoryStore and travels by name. Sources are identified by URL everywhere;
the ``[n]`` numbering is assigned once, when a report or answer is written.
The session's own bookkeeping (status, progress, usage, owner) is in
``shared.core.session_models``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field, computed_field

from shared.core.limits import AGENT_MAX_STEPS, NUM_AGENTS

Confidence = Literal["high", "medium", "low"]


# -- sources and pages ---------------------------------------------------------


class SearchResult(BaseModel):
    url: str
    title: str = ""
    snippet: str = ""
    score: float = 0.0
    provider: str = ""
    published: str | None = None
    tier: int | None = None


class Source(BaseModel):
    """A source actually fetched in this session; ``n`` is its citation number."""

    n: int = 0
    url: str
    title: str = ""
    tier: int | None = None
    snippet: str = ""


class Page(BaseModel):
    """Clean main text of a fetched page (stored as an item, never in history)."""

    url: str
    final_url: str | None = None
    title: str = ""
    text: str
    content_type: str = "text/plain"


class PageSummary(BaseModel):
    url: str
    title: str = ""
    summary: str
    relevant_sentences: list[str] = Field(default_factory=list)
    tier: int | None = None


class TimeRange(BaseModel):
    start: str | None = None  # ISO date
    end: str | None = None
    label: str = ""


# -- chat / search answers -----------------------------------------------------


class ChatMessage(BaseModel):
    role: Literal["user", "assistant"]
    content: str
    session_id: str | None = None
    created_at: datetime | None = None


class SynthesizedAnswer(BaseModel):
    reasoning: str = ""
    answer: str
    key_points: list[str] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    follow_up_questions: list[str] = Field(default_factory=list)
    language: str = "en"
    # what the answer had to do without (a failed search, an unreadable page, a fallback)
    limitations: list[str] = Field(default_factory=list)


# -- deep research phases ------------------------------------------------------


class ResearchContext(BaseModel):
    """What agents and the supervisor may see: never the chat history."""

    session_id: str
    query: str
    language: str = "en"
    deep_search_summary: str = ""
    clarification_questions: list[str] = Field(default_factory=list)
    clarification_answers: list[str] = Field(default_factory=list)
    clarification_timed_out: bool = False
    plan_review: str = ""  # how the user reviewed the plan, when approval was required
    # monitor: the report contrasts official (tier 1) with community (tier 5) sources
    source_policy: Literal["discovery", "strict", "monitor"] = "discovery"


class ClarificationRequest(BaseModel):
    """Field order is the order a model writes them in: the reason, then the verdict."""

    reason: str = ""
    questions: list[str] = Field(default_factory=list, max_length=5)
    needed: bool


class QueryAnalysis(BaseModel):
    """Concepts first: the type, the complexity and the effort are judged from them."""

    key_concepts: list[str] = Field(default_factory=list)
    query_type: Literal["fact", "definition", "how_to", "comparison", "why", "list", "open"]
    complexity: Literal["simple", "moderate", "complex"]
    recommended_agents: int = Field(1, **NUM_AGENTS.bounds)
    recommended_steps: int = Field(3, **AGENT_MAX_STEPS.bounds)


class ResearchTopic(BaseModel):
    id: int
    title: str
    priority: int = Field(1, ge=1, le=5)
    queries: list[str] = Field(default_factory=list)
    rationale: str = ""


class ResearchPlan(BaseModel):
    summary: str = ""
    topics: list[ResearchTopic] = Field(min_length=1, max_length=6)


PlanOutcome = Literal["waiting", "approved", "edited", "timed_out"]


class PlanApproval(BaseModel):
    """A deep research plan held for the user's approval before any researcher runs.

    ``outcome`` moves from ``waiting`` to ``approved`` or ``edited`` (the API
    records the user's decision, with the edited plan) or ``timed_out``;
    ``changes`` says in words what an edit changed.
    """

    plan: ResearchPlan
    num_agents: int = Field(**NUM_AGENTS.bounds)
    max_agents: int = Field(**NUM_AGENTS.bounds)
    deadline: datetime
    outcome: PlanOutcome = "waiting"
    changes: list[str] = Field(default_factory=list)
    decided_at: datetime | None = None


class AgentProfile(BaseModel):
    agent_id: int
    name: str
    specialization: str
    working_style: str = ""
    source_preferences: list[str] = Field(default_factory=list)


class Todo(BaseModel):
    id: str
    agent_id: int
    topic_id: int
    topic: str
    instruction: str = ""
    queries: list[str] = Field(default_factory=list)
    status: Literal["pending", "in_progress", "done", "failed"] = "pending"


class AgentAction(BaseModel):
    """One ReAct step: think, then call one tool."""

    thought: str = ""
    tool: Literal["web_search", "scrape_url", "done"]
    argument: str = ""


class Observation(BaseModel):
    """What one tool call returned, as the agent sees it on its next step.

    A read page shows its passages most relevant to the task (``passages``), so
    the agent can judge whether it has what the task needs.
    """

    tool: Literal["web_search", "scrape_url", "done"]
    argument: str = ""
    results: list[SearchResult] = Field(default_factory=list)
    page_urls: list[str] = Field(default_factory=list)
    passages: str = ""
    note: str = ""


class AgentState(BaseModel):
    """Everything a researcher may see while deciding its next step."""

    context: ResearchContext
    profile: AgentProfile
    todo: Todo
    step: int = 0
    max_steps: int = AGENT_MAX_STEPS.default
    observations: list[Observation] = Field(default_factory=list)
    own_notes: list[str] = Field(default_factory=list)
    main_insights: list[str] = Field(default_factory=list)
    fetched_urls: list[str] = Field(default_factory=list)
    thoughts: list[str] = Field(default_factory=list)  # this todo's earlier thoughts, in order


class KeyFinding(BaseModel):
    text: str
    source_urls: list[str] = Field(default_factory=list)


class SourceExcerpt(BaseModel):
    """What one page says on a task, nearly verbatim: the evidence writer and critic read.

    Sentences copied from the page in page order (`` … `` between gaps), chosen
    for the task and the key findings that cite the page; ``published`` is the
    date the search provider gave, when it gave one.
    """

    url: str
    text: str
    published: str | None = None


class Finding(BaseModel):
    agent_id: int
    topic: str
    topic_id: int = 0
    todo_id: str = ""
    summary: str = ""
    key_findings: list[KeyFinding] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    confidence: Confidence = "medium"
    notes: list[str] = Field(default_factory=list)
    error: str | None = None
    excerpts: list[SourceExcerpt] = Field(default_factory=list)

    @computed_field
    @property
    def key_findings_count(self) -> int:
        return len(self.key_findings)

    @computed_field
    @property
    def sources_count(self) -> int:
        return len(self.sources)

    @computed_field
    @property
    def notes_count(self) -> int:
        return len(self.notes)


class TopicCoverage(BaseModel):
    topic_id: int
    status: Literal["covered", "shallow", "missing"]
    evidence: str = ""


class NewTodo(BaseModel):
    topic_id: int
    instruction: str
    queries: list[str] = Field(default_factory=list)
    agent_id: int | None = None


class SupervisorReview(BaseModel):
    """Assess, then decide: a model writes structured fields in schema order, so the
    coverage, the draft and the todos come before the decision they justify."""

    coverage: list[TopicCoverage] = Field(default_factory=list)
    notes: str = ""
    key_insights: list[str] = Field(default_factory=list)
    draft_section_title: str = ""
    draft_section: str = ""
    new_todos: list[NewTodo] = Field(default_factory=list)
    decision: Literal["continue", "replan", "finish"]


class Critique(BaseModel):
    """The issues first, the verdict last (it is drawn from them)."""

    issues: list[str] = Field(default_factory=list)
    verdict: Literal["PASS", "WARN", "REJECT"]


class ReportSection(BaseModel):
    heading: str
    content: str


class FinalReport(BaseModel):
    title: str
    executive_summary: str
    sections: list[ReportSection] = Field(min_length=3)
    conclusion: str
    sources: list[Source] = Field(default_factory=list)
    confidence_level: Confidence = "medium"
    follow_up_questions: list[str] = Field(default_factory=list)
    language: str = "en"
    warnings: list[str] = Field(default_factory=list)
    # How the run fell short (a phase that failed, an agent, the budget): a section of its own.
    limitations: list[str] = Field(default_factory=list)


class ReportMaterial(BaseModel):
    """What the writer gets, already trimmed to the context budget."""

    context: ResearchContext
    primary: str = ""  # the reviewed report, the draft report or main.md text
    primary_kind: Literal["reviewed", "draft", "main", "findings"] = "findings"
    findings: list[Finding] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    excerpts: list[SourceExcerpt] = Field(default_factory=list)  # evidence, by source URL
    critique: Critique | None = None
    gaps: list[str] = Field(default_factory=list)  # what was not researched, and why
    analysis: QueryAnalysis | None = None  # decides the report's length and shape
