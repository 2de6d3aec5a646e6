"""Request bodies of the HTTP API, validated with pydantic (422 names the field)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from shared.core.config import ResearchOptions
from shared.core.limits import NUM_AGENTS
from shared.core.session_models import Mode
from shared.core.watch_models import WatchMode
from shared.usecases.plan_review import MAX_TOPICS, TopicEdit

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_\-]{0,127}$"
# C0 controls other than tab / newline / carriage return: they break PDF text,
# prompts and some stores, and no person types them.
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _user_text(value: str) -> str:
    """Shared rule for free text from users: some visible text, no control characters."""
    if not value.strip():
        raise ValueError("must contain text, not only whitespace")
    if _CONTROL_RE.search(value):
        raise ValueError("must not contain control characters")
    return value


class ResearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=4000)
    mode: Mode = Mode.deep_research
    chat_id: str | None = Field(None, pattern=ID_PATTERN)
    callback_url: str | None = Field(None, max_length=2000)
    options: ResearchOptions = Field(default_factory=ResearchOptions)
    wait_seconds: float = Field(0, ge=0, le=60)

    # A field validator (not a model validator) so the 422 names ``query``.
    @field_validator("query")
    @classmethod
    def _query_has_text(cls, value: str) -> str:
        return _user_text(value)


class ClarificationReply(BaseModel):
    """Either ``answers`` (one per question) or free ``text``."""

    model_config = ConfigDict(extra="forbid")

    answers: list[str] | None = Field(None, min_length=1, max_length=10)
    text: str | None = Field(None, min_length=1, max_length=4000)

    @field_validator("answers")
    @classmethod
    def _answers_have_text(cls, value: list[str] | None) -> list[str] | None:
        if value is not None:
            for answer in value:
                if len(answer) > 2000:
                    raise ValueError("each answer is at most 2000 characters")
                _user_text(answer)
        return value

    @field_validator("text")
    @classmethod
    def _text_has_text(cls, value: str | None) -> str | None:
        return None if value is None else _user_text(value)

    @model_validator(mode="after")
    def _one_of(self) -> ClarificationReply:
        if (self.answers is None) == (self.text is None):
            raise ValueError("give exactly one of 'answers' or 'text'")
        return self

    def as_answers(self) -> list[str]:
        if self.answers is not None:
            return [a.strip() for a in self.answers]
        return [self.text.strip()]


class PlanDecision(BaseModel):
    """The user's answer to a plan waiting for approval: ``approve``, ``edit`` or ``cancel``.

    An edit gives the whole new topic list (``topics``: planned topics by ``id``,
    new ones without), a new agent count (``num_agents``), or both.
    """

    model_config = ConfigDict(extra="forbid")

    action: Literal["approve", "edit", "cancel"]
    topics: list[TopicEdit] | None = Field(None, min_length=1, max_length=MAX_TOPICS)
    num_agents: int | None = Field(None, **NUM_AGENTS.bounds)

    @model_validator(mode="after")
    def _edit_has_changes(self) -> PlanDecision:
        changes = self.topics is not None or self.num_agents is not None
        if self.action == "edit" and not changes:
            raise ValueError("an edit gives 'topics', 'num_agents' or both")
        if self.action != "edit" and changes:
            raise ValueError(f"'{self.action}' takes no 'topics' or 'num_agents'")
        return self


class AskRequest(BaseModel):
    """A question about a finished session's report, answered from its own sources."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=2000)

    @field_validator("question")
    @classmethod
    def _question_has_text(cls, value: str) -> str:
        return _user_text(value).strip()


class WatchRequest(BaseModel):
    """A question to research again on a schedule (``POST /api/watches``)."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=4000)
    mode: WatchMode = "deep_research"
    every: str = Field(
        min_length=1, max_length=100, description="daily, weekly or a cron expression (UTC)"
    )
    callback_url: str | None = Field(None, max_length=2000)

    @field_validator("question")
    @classmethod
    def _question_has_text(cls, value: str) -> str:
        return _user_text(value).strip()
