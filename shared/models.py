"""Schemas exchanged between phases, activities, stores and the HTTP API.

Activity inputs and outputs are ``model_dump(mode="json")`` of these models
and stay small: big text (pages, findings, drafts, reports) lives in the
MemoryStore and travels by name. Sources are identified by URL everywhere;
the ``[n]`` numbering is assigned once, when a report or answer is written.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from shared.config import Caps, ResearchOptions


class Mode(str, Enum):
    chat = "chat"
    search = "search"
    deep_search = "deep_search"
    deep_research = "deep_research"


class SessionStatus(str, Enum):
    active = "active"
    waiting_clarification = "waiting_clarification"
    waiting_plan_approval = "waiting_plan_approval"
    researching = "researching"
    completed = "completed"
    failed = "failed"
    cancelled = "cancelled"
    superseded = "superseded"

    @property
    def is_terminal(self) -> bool:
        return self in TERMINAL_STATUSES


TERMINAL_STATUSES = frozenset(
    {
        SessionStatus.completed,
        SessionStatus.failed,
        SessionStatus.cancelled,
        SessionStatus.superseded,
    }
)

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
    recommended_agents: int = Field(1, ge=1, le=5)
    recommended_steps: int = Field(3, ge=1, le=15)


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
    num_agents: int = Field(ge=1, le=5)
    max_agents: int = Field(ge=1, le=5)
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
    max_steps: int = 5
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


# -- usage ---------------------------------------------------------------------


class Usage(BaseModel):
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            llm_calls=self.llm_calls + other.llm_calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost=round(self.cost + other.cost, 6),
        )

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


# -- progress and sessions -----------------------------------------------------


class AgentProgress(BaseModel):
    id: int
    profile: str = ""
    todo: str | None = None
    done: int = 0


class RunWarning(BaseModel):
    """Something the user should know about how the answer was made (a phase, in a sentence)."""

    phase: str
    message: str


MAX_WARNINGS = 20  # the custom status must stay far below 16 KB


class Progress(BaseModel):
    phase: str = "starting"
    agents: list[AgentProgress] = Field(default_factory=list)
    findings: int = 0
    sources: int = 0
    supervisor_calls: int = 0
    iteration: int = 0
    message: str = ""
    warnings: list[RunWarning] = Field(default_factory=list)

    def warn(self, phase: str, message: str) -> None:
        """Record a warning once; the latest is also the live ``message``."""
        message = message[:300]
        self.message = message
        if len(self.warnings) < MAX_WARNINGS and not any(
            w.phase == phase and w.message == message for w in self.warnings
        ):
            self.warnings.append(RunWarning(phase=phase, message=message))


class Owner(BaseModel):
    """Whose session this is: the principal id within its tenant (shared/identity.py).

    No name or e-mail: the owner is compared, never shown. Sessions stored
    before owners existed have none and belong to the anonymous owner.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    tenant: str = ""


ANONYMOUS_OWNER = Owner(id="anonymous")


class SessionRecord(BaseModel):
    """The session document (Cosmos item / SQLite row), partition key chat_id.

    ``chat_id`` is the owner's chat key (``shared.access.chat_key``): two people
    using the same chat id never share a chat, its history or its active slot.
    """

    model_config = ConfigDict(extra="ignore")

    id: str
    chat_id: str
    owner: Owner = ANONYMOUS_OWNER
    original_query: str
    mode: Mode
    status: SessionStatus = SessionStatus.active
    instance_id: str
    language: str = "en"
    callback_url: str | None = None
    options: ResearchOptions = Field(default_factory=ResearchOptions)
    progress: Progress = Field(default_factory=Progress)
    deep_search_result: SynthesizedAnswer | None = None
    clarification_questions: list[str] = Field(default_factory=list)
    clarification_answers: list[str] = Field(default_factory=list)
    plan_approval: PlanApproval | None = None
    draft_report_ref: str | None = None
    final_report_ref: str | None = None
    result: dict | None = None
    error: str | None = None
    webhook_deliveries: list[dict] = Field(default_factory=list)
    # The webhook outbox (shared/webhook_outbox.py): event bodies recorded with the
    # state change they report, in sequence order, and the lease of the sender draining it.
    webhook_events: list[dict] = Field(default_factory=list)
    webhook_lease: dict | None = None
    usage: Usage = Field(default_factory=Usage)
    created_at: datetime
    updated_at: datetime
    etag: str | None = None


# -- orchestration inputs ------------------------------------------------------


class StartInput(BaseModel):
    """Input of every mode orchestration; built by the HTTP start handler."""

    session_id: str
    chat_id: str
    query: str
    mode: Mode
    language: str = "en"
    caps: Caps
    history: list[ChatMessage] = Field(default_factory=list)
    callback_url: str | None = None
    as_phase: bool = False  # deep search run inside a deep research: no completion, no webhook
