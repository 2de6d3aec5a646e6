"""Whether what was read answers the question: per topic, and as content.

``TopicCompleteness`` replaces the supervisor's covered/shallow/missing verdict and is
what the search modes judge after every round: a score, the quote that proves it
and what is still missing, so the next round searches only the gaps
(``gap_query``). ``ContentCheck`` is the check before answering: a "what is"
question needs a definition, a "how to" question steps, a technical one code,
and pages that are only navigation answer nothing.

Stored reviews written before ``score`` existed (``status`` covered / shallow /
missing) still read: the validator maps them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

COVERED_SCORE = 0.7  # the spec's completeness threshold: a topic at or above it is covered
_LEGACY_SCORES = {"covered": 1.0, "shallow": 0.4, "missing": 0.0}

Need = Literal["definition", "steps", "code"]


class TopicCompleteness(BaseModel):
    """One topic of the question: covered or not, how well (0-1), the quote, the gaps."""

    topic_id: int = 0  # the plan's topic (deep research); 0 in the search modes
    topic: str = ""
    covered: bool = False
    score: float = Field(0.0, ge=0.0, le=1.0)
    evidence: str = ""  # an exact quote from what was read; empty when nothing covers it
    gaps: list[str] = Field(default_factory=list)
    gap_query: str = ""  # the search that would fill the gaps

    @model_validator(mode="before")
    @classmethod
    def _from_status(cls, data: Any) -> Any:
        """A review stored as ``{topic_id, status, evidence}`` (before scores) still reads."""
        if isinstance(data, dict) and "status" in data and "covered" not in data:
            status = data["status"]
            data = {k: v for k, v in data.items() if k != "status"}
            data["covered"] = status == "covered"
            data.setdefault("score", _LEGACY_SCORES.get(status, 0.0))
        return data

    @property
    def status(self) -> Literal["covered", "shallow", "missing"]:
        """The former three-word verdict, for the supervisor's notes."""
        if self.covered:
            return "covered"
        return "shallow" if self.score > 0 else "missing"


class ContentCheck(BaseModel):
    """What kind of content the question needs and which of it nothing read provides."""

    needs: list[Need] = Field(default_factory=list)
    missing: list[Need] = Field(default_factory=list)
    navigation_only: bool = False  # the pages read are menus or tables of contents

    @property
    def ok(self) -> bool:
        return not self.missing and not self.navigation_only


class CompletenessReview(BaseModel):
    """A reasoner's verdict on everything read so far, topic by topic."""

    topics: list[TopicCompleteness] = Field(default_factory=list)
    content: ContentCheck = Field(default_factory=ContentCheck)
    content_queries: list[str] = Field(default_factory=list)  # searches for what content lacks

    @property
    def gap_queries(self) -> list[str]:
        """One search per uncovered topic, and none for a covered one."""
        return [t.gap_query or t.topic for t in self.topics if not t.covered and t.topic]
