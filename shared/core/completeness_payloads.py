"""The completeness step's activity input and output (see ``completeness_models``).

The review itself is stored in the session folder (``completeness_N.json``); the
orchestration carries its name, the topic titles (so every round judges the same
topics) and the searches the next round should run.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from shared.core.completeness_models import Need
from shared.core.payloads import Metered


class CompletenessIn(BaseModel):
    session_id: str
    query: str
    language: str
    summary_refs: list[str]
    topics: list[str] = Field(default_factory=list)  # empty: the reasoner names them
    name: str = "completeness"  # stored as {name}.json
    n: int = 3  # searches at most, for the gaps and for the missing content each


class CompletenessOut(Metered):
    review_ref: str = ""
    topics: list[str] = Field(default_factory=list)
    covered: int = 0
    gap_queries: list[str] = Field(default_factory=list)
    missing: list[Need] = Field(default_factory=list)
    navigation_only: bool = False
    content_queries: list[str] = Field(default_factory=list)

    @property
    def content_ok(self) -> bool:
        return not self.missing and not self.navigation_only
