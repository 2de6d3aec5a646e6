"""Request bodies of the HTTP API, validated with pydantic (422 names the field)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from shared.config import ResearchOptions
from shared.models import Mode

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_\-]{0,127}$"


class ResearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=4000)
    mode: Mode = Mode.deep_research
    chat_id: str | None = Field(None, pattern=ID_PATTERN)
    callback_url: str | None = Field(None, max_length=2000)
    options: ResearchOptions = Field(default_factory=ResearchOptions)
    wait_seconds: float = Field(0, ge=0, le=60)

    @model_validator(mode="after")
    def _query_has_text(self) -> ResearchRequest:
        if not self.query.strip():
            raise ValueError("query must contain text")
        return self


class ClarificationReply(BaseModel):
    """Either ``answers`` (one per question) or free ``text``."""

    model_config = ConfigDict(extra="forbid")

    answers: list[str] | None = Field(None, min_length=1, max_length=10)
    text: str | None = Field(None, min_length=1, max_length=4000)

    @model_validator(mode="after")
    def _one_of(self) -> ClarificationReply:
        if (self.answers is None) == (self.text is None):
            raise ValueError("give exactly one of 'answers' or 'text'")
        if self.answers is not None and any(len(a) > 2000 for a in self.answers):
            raise ValueError("each answer is at most 2000 characters")
        return self

    def as_answers(self) -> list[str]:
        return [a.strip() for a in self.answers] if self.answers is not None else [self.text.strip()]
