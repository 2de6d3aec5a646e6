"""A chat's decompositions, reused: the same question in the same chat is not planned again.

The specification leaves "caching decomposition" open (identical queries must
not be decomposed again). Here the decomposition (analysis, plan and time
range) is stored with each deep research as ``analysis.json``, and the chat's
sessions are the cache: a new deep research whose question, after case and
spacing, and whose clarification answers match an earlier session of the
same chat reuses that session's decomposition and skips the analysis and
planning calls. Lifetime: as long as the earlier session is kept (retention
and delete remove it). A replan always plans anew: its reason is that the old
direction was wrong.
"""

from __future__ import annotations

from shared.core.research_models import ResearchContext
from shared.core.session_models import Mode
from shared.ports import Services
from shared.usecases.research import memory_files
from shared.usecases.research.memory_files import PlannedResearch


def question_key(context: ResearchContext) -> str:
    """What makes two questions the same decomposition: the words and the clarifications."""
    parts = [context.query, *context.clarification_answers]
    return "\n".join(" ".join(part.casefold().split()) for part in parts)


def earlier_decomposition(
    svc: Services, chat_id: str, context: ResearchContext
) -> PlannedResearch | None:
    """The decomposition of an earlier session of ``chat_id`` with the same question."""
    if not chat_id or context.replan_reason:
        return None
    key = question_key(context)
    for record in svc.sessions.list_by_chat(chat_id):
        if record.id == context.session_id or record.mode != Mode.deep_research:
            continue
        planned = memory_files.read_analysis(svc.memory, record.id)
        if planned is not None and planned.question_key == key:
            return planned
    return None
