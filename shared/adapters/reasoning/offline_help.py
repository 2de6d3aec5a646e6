"""The offline supervisor's answer to a researcher stuck on its todo: a reformulated todo.

Rule: the new queries are the question's subject with the topic's title, the
title alone, the subject alone and the topic's planned queries, minus every query
the agent tried; the first two become a todo for the same agent and topic. When
every reformulation was tried, the answer is advice only: leave the topic open
and say so (the report's Limitations name an unresearched topic).
"""

from __future__ import annotations

from shared.adapters.reasoning.question_shape import subject_of
from shared.core.research_models import (
    HelpAnswer,
    HelpRequest,
    NewTodo,
    ResearchContext,
    ResearchPlan,
)
from shared.tools.lexical import unique_texts

NEW_QUERIES = 2


def answer_help(context: ResearchContext, plan: ResearchPlan, request: HelpRequest) -> HelpAnswer:
    topic = next((t for t in plan.topics if t.id == request.topic_id), None)
    title = topic.title if topic else ""
    subject = subject_of(context.query)
    candidates = [f"{subject} {title}".strip(), title, subject, *(topic.queries if topic else [])]
    queries = unique_texts([q for q in candidates if q], skip=request.tried)[:NEW_QUERIES]
    if not queries:
        return HelpAnswer(
            answer="Every reformulation was tried: leave this topic open and say so in the "
            "finding; the report will name it as not researched."
        )
    tried = f" instead of {request.tried[-1]!r}" if request.tried else ""
    return HelpAnswer(
        answer=f"Reformulate: search {queries[0]!r}{tried}, then read the best results.",
        new_todo=NewTodo(
            topic_id=request.topic_id,
            instruction=f"Search again with reformulated queries: {'; '.join(queries)}",
            queries=queries,
            agent_id=request.agent_id,
        ),
    )
