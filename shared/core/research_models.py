"""What the deep research phases decide and find: analysis, plan, agents, todos, findings.

The orchestrations carry these inside activity payloads (``shared.core.payloads``)
and the reasoners produce them; the supervisor's review and the plan awaiting
approval live here too. What a report or an answer is made of is in
``shared.core.report_models``, which builds on these; what the web gave (results,
pages, sources) is in ``shared.core.source_models``, below both.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field, computed_field

from shared.core.completeness_models import TopicCompleteness
from shared.core.limits import AGENT_MAX_STEPS, NUM_AGENTS, SourcePolicy
from shared.core.source_models import SearchResult, Source, SourceExcerpt, TimeRange

Confidence = Literal["high", "medium", "low"]


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
    source_policy: SourcePolicy = "discovery"
    # set only for the replan step: why the supervisor found the direction wrong, and the old plan
    replan_reason: str = ""
    # the period the question asks about (TimeRangeExtractor, set by the planning step):
    # every researcher search is limited to it and every prompt that weighs recency says it
    time_range: TimeRange | None = None


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
    # dropped: a replan replaced it before it ran
    status: Literal["pending", "in_progress", "done", "failed", "dropped"] = "pending"


class AgentAction(BaseModel):
    """One ReAct step: think, then call one tool (``ask_supervisor``: the argument is a
    question; the todo ends and the supervisor answers at its next review)."""

    thought: str = ""
    tool: Literal["web_search", "scrape_url", "done", "ask_supervisor"]
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


class NewTodo(BaseModel):
    topic_id: int
    instruction: str
    queries: list[str] = Field(default_factory=list)
    agent_id: int | None = None


class SupervisorReview(BaseModel):
    """Assess, then decide: a model writes structured fields in schema order, so the
    coverage, the draft and the todos come before the decision they justify."""

    coverage: list[TopicCompleteness] = Field(default_factory=list)
    notes: str = ""
    key_insights: list[str] = Field(default_factory=list)
    draft_section_title: str = ""
    draft_section: str = ""
    new_todos: list[NewTodo] = Field(default_factory=list)
    decision: Literal["continue", "replan", "finish"]


class HelpRequest(BaseModel):
    """A researcher's question to the supervisor, with what it tried (``tried``: its
    searches) and why it asks (``context``); answered at the supervisor's next review."""

    agent_id: int
    todo_id: str
    topic_id: int
    question: str
    context: str = ""
    tried: list[str] = Field(default_factory=list)


class HelpAnswer(BaseModel):
    """The supervisor's answer first, then the todo that acts on it (none: advice only)."""

    answer: str
    new_todo: NewTodo | None = None
