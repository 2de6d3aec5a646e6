"""The LLM reasoner's completeness check: the model judges, the code verifies.

One call per search round (the ``completeness`` role) names the question's topics
the first time (the spec's patterns), then judges the same topics every round. What
a model could get wrong is checked, not trusted: evidence must be a sentence found
verbatim in the summaries (else the topic is not covered and its score is capped at
``UNPROVEN_SCORE``), "covered" follows the score and the quote, topics it was not
asked about are dropped, and a "missing" need is one the question needs.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Protocol

from pydantic import BaseModel, Field

from shared.adapters.reasoning import llm_views as views
from shared.adapters.reasoning.roles import Role
from shared.core.completeness_models import (
    COVERED_SCORE,
    CompletenessReview,
    ContentCheck,
    Need,
    TopicCompleteness,
)
from shared.core.source_models import PageSummary
from shared.tools.lexical import unique_texts
from shared.tools.prompts.completeness import build_completeness

MAX_TOPICS = 6
UNPROVEN_SCORE = 0.5  # a topic the model calls covered without a quote we can find


class TopicVerdict(BaseModel):
    """Field order is the order a model writes them in: the quote, then the verdict."""

    topic: str
    evidence: str
    gaps: list[str] = Field(default_factory=list)
    score: float = Field(ge=0.0, le=1.0)
    covered: bool
    gap_query: str = ""


class CompletenessReply(BaseModel):
    topics: list[TopicVerdict] = Field(default_factory=list)
    needs: list[Need] = Field(default_factory=list)
    missing: list[Need] = Field(default_factory=list)
    navigation_only: bool = False
    content_queries: list[str] = Field(default_factory=list)


class _Asks(Protocol):
    def _ask(self, schema: type[Any], role: str | Role, messages: Any) -> Any: ...
    def _budget(self, step: str | Role) -> int: ...


class LLMCompleteness:
    """Mixed into ``LLMReasoner``: the Reasoner port's ``evaluate_completeness``."""

    def evaluate_completeness(
        self: _Asks, query: str, topics: list[str], summaries: list[PageSummary], language: str
    ) -> CompletenessReview:
        context = views.summaries_context(summaries, self._budget("completeness"))
        today = date.today().isoformat()
        messages = build_completeness(query, topics, context, COVERED_SCORE, language, today)
        reply = self._ask(CompletenessReply, "completeness", messages)
        return checked(reply, topics, summaries)


def checked(
    reply: CompletenessReply, topics: list[str], summaries: list[PageSummary]
) -> CompletenessReview:
    """The reply with every claim a model could get wrong checked (see module docstring)."""
    verdicts = {v.topic.strip().lower(): v for v in reply.topics if v.topic.strip()}
    if topics:
        wanted = [(t, verdicts.get(t.strip().lower())) for t in topics]
    else:
        wanted = [(v.topic.strip(), v) for v in reply.topics if v.topic.strip()][:MAX_TOPICS]
    read = _flat(" ".join([s.summary, *s.relevant_sentences, s.title]) for s in summaries)
    judged = [_topic(title, verdict, read) for title, verdict in wanted]
    needs = list(dict.fromkeys(reply.needs))
    missing = [n for n in dict.fromkeys(reply.missing) if n in needs]
    content = ContentCheck(
        needs=needs, missing=missing, navigation_only=reply.navigation_only and bool(summaries)
    )
    queries = unique_texts(reply.content_queries) if not content.ok else []
    return CompletenessReview(topics=judged, content=content, content_queries=queries)


def _topic(title: str, verdict: TopicVerdict | None, read: str) -> TopicCompleteness:
    if verdict is None:
        return TopicCompleteness(topic=title, gaps=["not judged"], gap_query=title)
    quote = verdict.evidence.strip()
    proven = bool(quote) and _flat([quote]) in read
    score = verdict.score if proven else min(verdict.score, UNPROVEN_SCORE)
    covered = proven and score >= COVERED_SCORE
    gaps = [] if covered else [g for g in verdict.gaps if g.strip()] or ["no quote proves it"]
    return TopicCompleteness(
        topic=title,
        covered=covered,
        score=round(score, 2),
        evidence=quote if proven else "",
        gaps=gaps,
        gap_query="" if covered else (verdict.gap_query.strip() or title),
    )


def _flat(texts: Any) -> str:
    return " ".join(" ".join(texts).split()).lower()
