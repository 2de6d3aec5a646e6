"""Activity inputs and outputs: small, JSON-safe, by reference for anything big.

Orchestrators build these as dicts (``Model(...).model_dump(mode="json")``) and activities
validate them back. Names of memory files (``*_ref``) travel instead of text; every model
stays far below Durable's 45 KB offload threshold (the bench checks the largest per mode).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from shared.core.limits import RERANK_TOP_K, SCRAPE_TOP_N, SourcePolicy
from shared.core.renamed import formerly
from shared.core.report_models import Critique
from shared.core.research_models import (
    AgentProfile,
    HelpRequest,
    NewTodo,
    PlanApproval,
    PlanOutcome,
    QueryAnalysis,
    ResearchContext,
    ResearchPlan,
    Todo,
)
from shared.core.session_models import ChatMessage, Progress, SessionPhases, SessionStatus, Usage
from shared.core.source_models import SearchResult, TimeRange


class Metered(BaseModel):
    usage: Usage = Field(default_factory=Usage)


FAILURE_KEY = "step_failure"


class StepFailure(Metered):
    """What an activity returns, under ``FAILURE_KEY``, instead of raising a permanent error.

    Durable 1.x retries every raised exception alike (``RetryOptions`` has no
    predicate), and retrying a 400 or a refused URL cannot help: so permanent
    errors come back as data, typed, with the usage spent before the failure,
    and the orchestrator raises them as ``StepFailed`` (orchestrators/common.py).
    Transient errors still raise, so the runtime retries them.
    """

    kind: Literal["permanent", "configuration"] = "permanent"
    error: str


# -- chat and search ---------------------------------------------------------------


class ChatIn(BaseModel):
    session_id: str
    query: str
    language: str
    history: list[ChatMessage] = Field(default_factory=list)


class PlanQueriesIn(ChatIn):
    n: int = 3


class PlanQueriesOut(Metered):
    rewritten: str
    queries: list[str]
    time_range: TimeRange | None = None


class WebSearchIn(BaseModel):
    query: str
    max_results: int = 8
    time_range: TimeRange | None = None


class WebSearchOut(BaseModel):
    results: list[SearchResult] = Field(default_factory=list)
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)  # the corrective judge's, query embeddings'


class SelectSourcesIn(BaseModel):
    query: str
    result_lists: list[list[SearchResult]]
    exclude_urls: list[str] = Field(default_factory=list)
    top_n: int = SCRAPE_TOP_N.default
    rerank_top_k: int = RERANK_TOP_K.default
    policy: SourcePolicy = "discovery"
    # False inside a deep research: strict never falls back to tiers 3-5 there
    fallback: bool = True


class SelectSourcesOut(BaseModel):
    selected: list[SearchResult] = Field(default_factory=list)
    leftovers: list[SearchResult] = Field(default_factory=list)  # ranked, unread: next round
    warnings: list[str] = Field(default_factory=list)


class ScrapeIn(BaseModel):
    session_id: str
    url: str
    title: str = ""
    tier: int | None = None
    item: str  # memory name without extension, e.g. "items/search_1_2"
    query: str
    language: str


class ScrapeOut(Metered):
    url: str
    title: str = ""
    ok: bool
    error: str | None = None
    summary_ref: str | None = None


class FollowUpIn(BaseModel):
    session_id: str
    query: str
    language: str
    summary_refs: list[str]
    n: int = 3


class QueriesOut(Metered):
    queries: list[str] = Field(default_factory=list)


class SynthesizeIn(BaseModel):
    session_id: str
    query: str
    language: str
    summary_refs: list[str]
    min_words: int
    max_words: int
    name: str = "answer"
    warnings: list[str] = Field(default_factory=list)  # the run's so far, for the answer
    policy: SourcePolicy = "discovery"  # said in the prompt
    follow_up_questions: bool = True  # not in a deep research's first phase: the report has them
    time_range: TimeRange | None = None  # the question's period: the answer weighs recency by it
    completeness_ref: str | None = None  # the last completeness review: the answer carries it


class AnswerOut(Metered):
    answer_ref: str
    source_count: int = Field(0, validation_alias=formerly("source_count", "sources"))
    summary: str = ""  # first ~1500 characters, for the deep research context


# -- sessions and delivery -------------------------------------------------------------


class UpdateSessionIn(BaseModel):
    session_id: str
    status: SessionStatus | None = None
    progress: Progress | None = None
    deep_search_ref: str | None = None
    clarification_questions: list[str] | None = None
    clarification_answers: list[str] | None = None
    plan_approval: PlanApproval | None = None
    usage: Usage | None = None


class CompleteSessionIn(BaseModel):
    session_id: str
    status: SessionStatus
    usage: Usage = Field(default_factory=Usage)
    answer_ref: str | None = None
    report_ref: str | None = None
    error: str | None = None
    progress: Progress | None = None
    phases: SessionPhases | None = None  # where time and money went (deep research)


class NotifyIn(BaseModel):
    session_id: str
    event: Literal["clarification_requested", "plan_ready", "completed", "failed", "cancelled"]
    # The event id is derived ("{session_id}:{event}", shared/usecases/webhook_outbox.py), not sent.


# -- deep research ---------------------------------------------------------------------


class ContextIn(BaseModel):
    context: ResearchContext


class ClarifyOut(Metered):
    needed: bool
    questions: list[str] = Field(default_factory=list)


class PlanResearchIn(ContextIn):
    max_agents: int
    max_steps: int | None = None  # the caps' agent_max_steps: the ceiling of agent_steps
    chat_id: str = ""  # an earlier session of this chat with the same question lends its plan


class PlanResearchOut(Metered):
    analysis: QueryAnalysis
    plan: ResearchPlan
    num_agents: int
    agent_steps: int | None = None  # steps per researcher todo; None: the caps' agent_max_steps
    time_range: TimeRange | None = None  # the question's period; the run's context keeps it
    reused: bool = False  # the decomposition of an earlier session of the chat, not planned anew


class PlanReviewOut(BaseModel):
    """The plan the research follows after its review (``shared/usecases/plan_review.py``)."""

    outcome: PlanOutcome
    plan: ResearchPlan
    num_agents: int
    note: str  # for the report: how the plan was reviewed


class SpawnAgentsIn(ContextIn):
    plan: ResearchPlan
    num_agents: int


class SpawnAgentsOut(Metered):
    profiles: list[AgentProfile]
    todos: list[Todo]


class ResearcherIn(ContextIn):
    profile: AgentProfile
    todo: Todo
    agent_todos: list[Todo] = Field(default_factory=list)  # the queue's view, for the agent file
    max_steps: int
    item: str  # "items/item_{n}"
    read_urls: list[str] = Field(default_factory=list)  # read by earlier todos on this topic


class ResearcherOut(Metered):
    """The finding envelope; ``ok=False`` carries the error instead of raising."""

    ok: bool
    agent_id: int
    todo_id: str
    topic_id: int
    item_ref: str | None = None
    key_findings: int = 0
    source_urls: list[str] = Field([], validation_alias=formerly("source_urls", "sources"))
    confidence: str = "low"
    steps: int = 0
    error: str | None = None
    help: HelpRequest | None = None  # the agent asked the supervisor (ask_supervisor)


class SupervisorIn(ContextIn):
    plan: ResearchPlan
    finding_ref: str
    finding_refs: list[str]
    todos: list[Todo]
    calls_left: int
    review_n: int
    help_requests: list[HelpRequest] = Field(default_factory=list)  # unanswered, oldest first


class SupervisorOut(Metered):
    decision: Literal["continue", "replan", "finish"]
    new_todos: list[NewTodo] = Field(default_factory=list)
    covered_topics: int = 0
    notes: str = ""
    answered: list[str] = Field(default_factory=list)  # todo ids whose help request it answered


class CompressIn(BaseModel):
    session_id: str
    finding_refs: list[str]
    deep_search_ref: str | None = None  # the deep search answer, merged as evidence


class CompressOut(BaseModel):
    findings: int
    key_findings: int
    source_count: int = Field(validation_alias=formerly("source_count", "sources"))


GapKind = Literal[
    "phase_failed",  # phase, error
    "deep_search_failed",  # error
    "agent_failed",  # agent_id, topic, error
    "topic_not_researched",  # topic_id, topic
    "budget_no_research",  # the budget left room only for the report
    "budget_topics_skipped",  # topics
    "budget_stopped",
    "budget_reviews_skipped",  # the supervisor's reviews, while agents went on
]


class Gap(BaseModel):
    """Something the run could not do, as data: orchestrators record what happened, and the
    report writer words it in the reader's language (``shared.adapters.report.limits_text``),
    since orchestrators may not import the report's wording."""

    kind: GapKind
    phase: str = ""
    error: str = ""  # the exception's text as raised, in one sentence
    agent_id: int = 0
    topic_id: int = 0
    topic: str = ""
    topics: list[str] = Field(default_factory=list)


class ReportIn(ContextIn):
    round: int = 0
    critique: Critique | None = None
    failure: str | None = None  # set when only the minimal report can be written
    gaps: list[Gap] = Field(default_factory=list)  # what failed or was cut, named in the report
    mode: str = "deep_research"


class ReportOut(Metered):
    report_ref: str
    title: str
    sections: int
    source_count: int = Field(validation_alias=formerly("source_count", "sources"))
    confidence: str
    basis: str  # reviewed | draft | main | findings | draft_fallback | minimal
    warnings: list[str] = Field(default_factory=list)  # the report's notes, in its language
    failure: str | None = None  # why only the draft or a minimal report exists (English)
    unsourced: str | None = None  # why a real report lists no source, in English for the status
    too_short: str | None = None  # a report under the minimum length, in English for the status


class CritiqueOut(Metered, Critique):
    """The critic's whole assessment (the next rewrite reads it) and what it cost."""


class PdfIn(BaseModel):
    session_id: str
    language: str
    title: str


class PdfOut(BaseModel):
    ok: bool
    pdf_ref: str | None = None
    bytes: int = 0
    error: str | None = None
