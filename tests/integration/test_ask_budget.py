"""Asking a finished session spends that session's budget (``shared.usecases.ask``), with the
LLM reasoner against the OpenAI-protocol fake over HTTP, and the real SQLite and filesystem
stores: what the model used is added to the session's usage, the answer keeps only the
citations the session can back, and a session whose budget is spent asks no model."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from shared.adapters.reasoning.llm import LLMReasoner
from shared.adapters.stores.filesystem import FilesystemMemoryStore
from shared.adapters.stores.sqlite import SqliteSessionStore
from shared.core.config import ResearchOptions, Settings
from shared.core.errors import ConflictError
from shared.core.report_models import FinalReport, ReportSection
from shared.core.session_models import Mode, SessionRecord, SessionStatus, Usage
from shared.core.source_models import Page, Source
from shared.usecases import ask
from shared.usecases.research.page_cache import page_name
from tests.fakes import openai_server
from tests.fakes.openai_server import json_completion

fake_openai = openai_server.fake_openai  # the fixture, registered in this module

URL = "https://docs.example/with"


@pytest.fixture
def svc(fake_openai, tmp_path):
    settings = Settings(
        openai_base_url=fake_openai.base_url, openai_api_key="test", data_dir=tmp_path
    )
    return SimpleNamespace(
        settings=settings,
        sessions=SqliteSessionStore(tmp_path / "sessions.sqlite3"),
        memory=FilesystemMemoryStore(tmp_path / "memory"),
        reasoner=LLMReasoner(settings),
    )


def finished(svc, max_tokens: int) -> SessionRecord:
    now = datetime.now(UTC)
    record = SessionRecord(
        id="s1",
        chat_id="c1",
        original_query="How does the with statement work?",
        mode=Mode.deep_research,
        status=SessionStatus.completed,
        instance_id="s1",
        options=ResearchOptions(max_tokens=max_tokens),
        usage=Usage(llm_calls=10, prompt_tokens=3000, completion_tokens=1000),
        created_at=now,
        updated_at=now,
    )
    svc.sessions.create(record)
    sections = [
        ReportSection(heading=f"Part {i}", content="It calls __exit__ [1].") for i in range(3)
    ]
    report = FinalReport(
        title="With",
        executive_summary="The with statement calls __enter__ and __exit__ [1].",
        sections=sections,
        conclusion="Done.",
        sources=[Source(n=1, url=URL, title="With")],
    )
    svc.memory.write("s1", "report.json", report.model_dump_json(), "application/json")
    page = Page(url=URL, text="The with statement calls __exit__ even when the block raises.")
    svc.memory.write("s1", page_name(URL), page.model_dump_json(), "application/json")
    return record


def test_an_answer_is_charged_to_the_session_and_a_spent_budget_stops_asking(svc, fake_openai):
    record = finished(svc, max_tokens=5000)
    reply = {"answered": True, "answer": "It calls __exit__ when the block raises [1][7]."}
    fake_openai.enqueue(json_completion(reply, prompt_tokens=700, completion_tokens=400))

    exchange = ask.ask(svc, record, "What happens when the block raises?")

    assert exchange.answered and exchange.answer == "It calls __exit__ when the block raises [1]."
    assert [s.url for s in exchange.sources] == [URL]
    assert (exchange.usage.llm_calls, exchange.usage.total_tokens) == (1, 1100)
    prompt = fake_openai.requests[0].messages[1]["content"]
    assert f'<source n="1" url="{URL}"' in prompt and "even when the block raises" in prompt
    charged = svc.sessions.get("s1")
    assert (charged.usage.llm_calls, charged.usage.total_tokens) == (11, 5100)

    with pytest.raises(ConflictError, match="spent its budget"):
        ask.ask(svc, charged, "And then?")
    assert len(fake_openai.requests) == 1  # no model was asked
    assert [e.question for e in ask.exchanges(svc, "s1")] == ["What happens when the block raises?"]
