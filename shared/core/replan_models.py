"""Payloads of the two steps that keep the research queue honest to its plan and its draft.

- ``replan_research``: the supervisor said the direction is wrong; a new plan and
  todos replace the pending ones (``ReplanIn`` -> ``ReplanOut``).
- ``fold_late_findings``: findings no supervisor review read (they came after the
  supervisor-call limit, or a review was skipped or failed) join draft_report.md
  before the writer runs (``LateFindingsIn``).

Kept apart from ``payloads.py`` so each module holds one concept; like every
payload they carry names of memory files, never their text.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from shared.core.payloads import ContextIn, Metered
from shared.core.research_models import AgentProfile, ResearchPlan, Todo


class ReplanIn(ContextIn):
    plan: ResearchPlan  # the plan the supervisor found wrong
    reason: str  # the supervisor's notes: why
    replan_n: int  # 1 for the session's first replan (the entry id in main.md)
    agent_ids: list[int] = Field(min_length=1)  # the agents that take the new todos
    max_todos: int = Field(ge=1)  # researcher runs the session still has
    first_todo: int = Field(ge=1)  # the number of the first new todo ("todo-7")
    done_topics: list[str] = Field(default_factory=list)  # already researched: not again
    # the queue's todos as they stand once the pending ones are dropped, and the agents with
    # no todo running: their agent_N.md is rewritten here (a running one's researcher writes it)
    todos: list[Todo] = Field(default_factory=list)
    idle_profiles: list[AgentProfile] = Field(default_factory=list)


class ReplanOut(Metered):
    plan: ResearchPlan
    todos: list[Todo]


class LateFindingsIn(BaseModel):
    session_id: str
    finding_refs: list[str]  # "{session}/items/item_N" of findings no review read
