"""The session's own bookkeeping: its document, status, progress, usage, owner and chat.

Kept apart from the research, report and source models (what research phases
exchange) because it changes for other reasons: the session store, the status
API and the orchestrations' start input evolve with session handling, not with
research. ``SessionRecord`` embeds a few research results (the deep search
answer, the plan awaiting approval), so this module imports
``shared.core.report_models`` and ``shared.core.research_models`` and never the
other way round.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from shared.core.analysis_models import ChainStage
from shared.core.config import Caps, ResearchOptions, SourcePolicy
from shared.core.renamed import formerly
from shared.core.report_models import SynthesizedAnswer
from shared.core.research_models import PlanApproval


class ChatMessage(BaseModel):
    role: Literal["user", "assistant"]
    content: str
    session_id: str | None = None
    created_at: datetime | None = None


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


class PhaseFigures(BaseModel):
    """One phase of a run: its time and usage (``shared/core/phase_models.py``)."""

    phase: str
    seq: int = Field(1, ge=1, description="the n-th time the session entered this phase")
    started_at: datetime
    ended_at: datetime
    seconds: float = Field(0.0, ge=0)
    usage: Usage = Field(default_factory=Usage)


class SessionPhases(BaseModel):
    """The run's phases, handed to the activity that completes the session."""

    started_at: datetime
    phases: list[PhaseFigures] = Field(default_factory=list)


# -- progress and sessions -----------------------------------------------------


class AgentProgress(BaseModel):
    id: int
    profile: str = ""
    todo: str | None = None
    done: int = 0
    steps: int = 0  # tool calls its finished todos took (effort follows the question)


class RunWarning(BaseModel):
    """Something the user should know about how the answer was made (a phase, in a sentence)."""

    phase: str
    message: str


MAX_WARNINGS = 20  # the custom status must stay far below 16 KB


class Progress(BaseModel):
    phase: str = "starting"
    agents: list[AgentProgress] = Field(default_factory=list)
    findings: int = 0
    # sources read so far; stored progress (session documents, custom status) may say "sources"
    source_count: int = Field(0, validation_alias=formerly("source_count", "sources"))
    supervisor_calls: int = 0
    iteration: int = 0
    message: str = ""
    warnings: list[RunWarning] = Field(default_factory=list)
    # the analyst -> critic -> writer chain of a deep research, newest last
    chain: list[ChainStage] = Field(default_factory=list)

    def warn(self, phase: str, message: str) -> None:
        """Record a warning once; the latest is also the live ``message``."""
        message = message[:300]
        self.message = message
        if len(self.warnings) < MAX_WARNINGS and not any(
            w.phase == phase and w.message == message for w in self.warnings
        ):
            self.warnings.append(RunWarning(phase=phase, message=message))


class PolicyChoice(BaseModel):
    """The source policy a session runs with, and why (``shared/usecases/policy_choice.py``).

    ``chosen_by``: ``request`` (``options.source_policy``), ``keyword`` (the question
    names it: ``keyword`` is the word as the question wrote it) or ``default``.
    """

    policy: SourcePolicy
    chosen_by: Literal["request", "keyword", "default"]
    keyword: str | None = None


class Owner(BaseModel):
    """Whose session this is: the principal id within its tenant (shared/adapters/identity.py).

    No name or e-mail: the owner is compared, never shown. Sessions stored
    before owners existed have none and belong to the anonymous owner.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    tenant: str = ""


ANONYMOUS_OWNER = Owner(id="anonymous")


class Redeliveries(BaseModel):
    """The webhook redeliveries a user asked for (``shared/usecases/webhook_outbox.py``).

    ``count`` numbers them for good (each one's instance id); ``recent`` keeps
    only the times inside the rate-limit window, so it never grows past the limit.
    """

    count: int = 0
    recent: list[datetime] = Field(default_factory=list)


class RunningCall(BaseModel):
    """A model call that has been running for a while (``llm_endpoint/slow_calls.py``)."""

    id: str
    model: str
    started_at: datetime


class SessionRecord(BaseModel):
    """The session document (Cosmos item / SQLite row), partition key chat_id.

    ``chat_id`` is the owner's chat key (``shared.usecases.access.chat_key``): two people
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
    source_policy: PolicyChoice | None = None  # every mode but chat
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
    # The webhook outbox (shared/usecases/webhook_outbox.py): event bodies recorded with the
    # state change they report, in sequence order, and the lease of the sender draining it.
    webhook_events: list[dict] = Field(default_factory=list)
    webhook_lease: dict | None = None
    webhook_redeliveries: Redeliveries = Field(default_factory=Redeliveries)
    usage: Usage = Field(default_factory=Usage)
    phases: list[PhaseFigures] = Field(default_factory=list)  # where time and money went
    # slow model calls still running, shown in the status while they run
    model_calls: list[RunningCall] = Field(default_factory=list)
    # the newest answer chunk stored (shared/usecases/research/answer_stream.py): a poll that
    # has it reads no chunks; None (a session from before): the poll asks the chunk store
    last_chunk_seq: int | None = None
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
