"""The offline plan of a compound question: one topic per sub-question.

"When was the coolant pump seal replaced, and how do asyncio tasks handle
cancellation?" asks two unrelated things. The corpus-anchored plan
(``offline_research.plan``) would find topics for the half its corpus knows and
title the rest after the whole question, so neither half is researched on its own
and a collection cannot be judged to cover one half (the corrective fallback judges
per topic). A question asking one thing is planned as before.
"""

from __future__ import annotations

from shared.adapters.reasoning import offline_research
from shared.adapters.reasoning.question_shape import subject_of
from shared.adapters.reasoning.templates import texts_for
from shared.adapters.search.base import Corpus
from shared.core.research_models import QueryAnalysis, ResearchContext, ResearchPlan, ResearchTopic
from shared.tools import lexical
from shared.tools.sub_questions import sub_questions


def plan(
    corpus: Corpus, context: ResearchContext, analysis: QueryAnalysis, max_topics: int
) -> ResearchPlan:
    parts = sub_questions(context.query)
    if len(parts) < 2 or max_topics < len(parts):
        return offline_research.plan(corpus, context, analysis, max_topics)
    t = texts_for(context.language)
    topics = [
        ResearchTopic(
            id=i,
            title=part,
            priority=1,
            queries=lexical.unique_texts([part, subject_of(part)]),
            rationale=t["plan_rationale"].format(aspect=part.rstrip("?？")),
        )
        for i, part in enumerate(parts, start=1)
    ]
    return ResearchPlan(
        summary=t["plan_summary"].format(count=len(topics), query=context.query), topics=topics
    )
