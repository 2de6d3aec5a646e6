"""The replies LLMReasoner asks a model for where it cannot ask for a public model.

A public model may carry fields only we set (sources, citation numbers, ids),
which a model asked for them would invent; and a strict structured-output
schema must be an object, so a bare list of queries or profiles needs a
wrapper. The reasoner asks for these instead and builds the public model from
them. Their class names are the schema names sent on the wire
(``wire_schema.schema_name``). The finding and report drafts live in
``grounding.py``, next to the checks that turn them into public models.
"""

from __future__ import annotations

from pydantic import BaseModel

from shared.core.research_models import AgentProfile


class ChatReply(BaseModel):
    reasoning: str
    answer: str
    key_points: list[str]


class Queries(BaseModel):
    queries: list[str]


class Questions(BaseModel):
    questions: list[str]


class PageSummaryDraft(BaseModel):
    summary: str
    relevant_sentences: list[str]


class Profiles(BaseModel):
    profiles: list[AgentProfile]
