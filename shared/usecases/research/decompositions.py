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
    return "\n".join(_words(part) for part in [context.query, *context.clarification_answers])


def _words(text: str) -> str:
    """``text`` after case and spacing; never contains a line break."""
    return " ".join(text.casefold().split())


def earlier_decomposition(
    svc: Services, chat_id: str, context: ResearchContext
) -> PlannedResearch | None:
    """The decomposition of an earlier session of ``chat_id`` with the same question.

    The session's stored question is the first line of its key: only a session
    asked the same words has its ``analysis.json`` read, for the whole key.
    """
    if not chat_id or context.replan_reason:
        return None
    key, words = question_key(context), _words(context.query)
    for record in svc.sessions.list_by_chat(chat_id):
        if (
            record.id == context.session_id
            or record.mode != Mode.deep_research
            or _words(record.original_query) != words  # no file read for another question
        ):
            continue
        planned = memory_files.read_analysis(svc.memory, record.id)
        if planned is not None and planned.question_key == key:
            return planned
    return None
