"""The same question in a chat reuses its decomposition (issue 30, item 8), end to end.

devhost over HTTP with the LLM reasoner against the OpenAI-protocol fake: two
deep researches of the same question in one chat. The second is planned from
the first's stored decomposition, so the fake sees no second analysis and no
second plan; a different chat asking the same question is planned anew. The
planning prompt carries the specification's decomposition patterns.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from shared.core.config import Settings
from tests.e2e.polling import wait_terminal
from tests.fakes.openai_server import FakeOpenAIServer, RecordedRequest
from tests.fakes.small_corpus import write_corpus

pytestmark = pytest.mark.e2e

QUERY = "How to use Python generators?"
SMALL = {
    "num_agents": 1,
    "agent_max_steps": 3,
    "max_iterations": 1,
    "run_deep_search_first": False,
    "enable_clarifying_questions": False,
}
RUN_TIMEOUT = 180.0


def schema_of(request: RecordedRequest) -> str:
    response_format = request.json.get("response_format") or {}
    return (response_format.get("json_schema") or {}).get("name", "text")


def research(api: httpx.Client, chat_id: str, query: str = QUERY) -> dict[str, Any]:
    body = {"query": query, "mode": "deep_research", "chat_id": chat_id, "options": SMALL}
    response = api.post("/api/research", json=body)
    assert response.status_code in (200, 202), response.text
    view = wait_terminal(api, response.json()["session_id"], RUN_TIMEOUT)
    assert view["status"] == "completed", view
    return view


def planning_calls(llm: FakeOpenAIServer, start: int, end: int) -> Counter[str]:
    """Analysis and plan calls among the requests numbered ``start`` to ``end``."""
    names = Counter(schema_of(r) for r in llm.requests[start:end])
    return Counter({k: names[k] for k in ("QueryAnalysis", "ResearchPlan") if names[k]})


def test_a_repeated_question_in_a_chat_reuses_its_decomposition(
    fake_openai: FakeOpenAIServer, start_devhost, tmp_path: Path
) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        openai_base_url=fake_openai.base_url,
        openai_api_key="test",
        search_provider="local",
        local_corpus_path=write_corpus(tmp_path / "corpus"),
    )
    host = start_devhost(settings)
    with httpx.Client(base_url=host.url, timeout=30) as api:
        research(api, "chat-a")
        first = len(fake_openai.requests)
        research(api, "chat-a", "  how to use python  GENERATORS? ")
        second = len(fake_openai.requests)
        research(api, "chat-b")

    plans = [r.prompt_text for r in fake_openai.requests if schema_of(r) == "ResearchPlan"]
    once = Counter({"QueryAnalysis": 1, "ResearchPlan": 1})
    assert planning_calls(fake_openai, 0, first) == once
    assert planning_calls(fake_openai, first, second) == Counter()  # reused: one planning fewer
    assert planning_calls(fake_openai, second, len(fake_openai.requests)) == once  # other chat
    assert "How to X?" in plans[0] and "Prerequisites, Step-by-step, Code examples" in plans[0]
    assert "When to use each" in plans[0] and "Definition, Key features" in plans[0]
