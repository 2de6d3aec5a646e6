"""Finding a chat's earlier decomposition, on the real SQLite and file stores.

The same question (after case and spacing) with the same clarification answers
reuses the earlier plan; only earlier sessions asked those words have their
analysis.json read, so a long chat of other questions costs no file reads.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from shared.adapters.stores.filesystem import FilesystemMemoryStore
from shared.adapters.stores.sqlite import SqliteSessionStore
from shared.core.research_models import QueryAnalysis, ResearchContext, ResearchPlan, ResearchTopic
from shared.core.session_models import Mode, SessionRecord, SessionStatus
from shared.usecases.research import memory_files
from shared.usecases.research.decompositions import earlier_decomposition, question_key

CHAT = "chat-1"
QUESTION = "How to use Python generators?"


class ReadsCounted(FilesystemMemoryStore):
    """The file store, noting which sessions' files were read."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.read_sessions: list[str] = []

    def read(self, session_id: str, name: str) -> bytes:
        self.read_sessions.append(session_id)
        return super().read(session_id, name)


@pytest.fixture
def svc(tmp_path: Path) -> Iterator[SimpleNamespace]:
    sessions = SqliteSessionStore(tmp_path / "sessions.sqlite3")
    yield SimpleNamespace(sessions=sessions, memory=ReadsCounted(tmp_path / "memory"))
    sessions.close()


def planned_session(svc: SimpleNamespace, query: str, answers: tuple[str, ...] = ()) -> str:
    """A finished deep research of ``CHAT`` with its stored decomposition."""
    now = datetime.now(UTC)
    record = SessionRecord(
        id=uuid.uuid4().hex,
        chat_id=CHAT,
        original_query=query,
        mode=Mode.deep_research,
        status=SessionStatus.completed,
        instance_id=uuid.uuid4().hex,
        clarification_answers=list(answers),
        created_at=now,
        updated_at=now,
    )
    svc.sessions.create(record)
    context = ResearchContext(session_id=record.id, query=query, clarification_answers=answers)
    plan = ResearchPlan(summary=query, topics=[ResearchTopic(id=1, title=query)])
    analysis = QueryAnalysis(query_type="how_to", complexity="simple")
    planned = memory_files.PlannedResearch(
        analysis=analysis, plan=plan, question_key=question_key(context)
    )
    memory_files.write_analysis(svc.memory, record.id, planned)
    return record.id


def asking(query: str, answers: tuple[str, ...] = ()) -> ResearchContext:
    return ResearchContext(session_id="new", query=query, clarification_answers=list(answers))


def test_the_same_question_reuses_the_plan_reading_only_its_own_file(svc) -> None:
    same = planned_session(svc, QUESTION)
    for other in ("What is a tuple?", "How do decorators work?", "Why is the GIL there?"):
        planned_session(svc, other)  # newer: listed first

    found = earlier_decomposition(svc, CHAT, asking("  how to use python  GENERATORS? "))

    assert found is not None and found.plan.summary == QUESTION
    assert svc.memory.read_sessions == [same]


def test_other_questions_are_not_read_at_all(svc) -> None:
    for other in ("What is a tuple?", "How do decorators work?"):
        planned_session(svc, other)

    assert earlier_decomposition(svc, CHAT, asking(QUESTION)) is None
    assert svc.memory.read_sessions == []


def test_the_same_words_with_other_clarification_answers_are_planned_anew(svc) -> None:
    planned_session(svc, QUESTION, ("for data pipelines",))

    assert earlier_decomposition(svc, CHAT, asking(QUESTION, ("for games",))) is None
    found = earlier_decomposition(svc, CHAT, asking(QUESTION, ("For data  pipelines",)))
    assert found is not None and found.plan.summary == QUESTION
