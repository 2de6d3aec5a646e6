"""Follow-up questions after every answer with a model (issue 30, item 9).

devhost with the LLM reasoner against the OpenAI-protocol fake: chat, search
and deep_search answers end with 3-5 follow-up questions asked of the
strategic role in a call of their own (temperature 0.7, as the specification's
LLM roles say); a deep research report carries its own, written with the
report, so neither it nor its deep search phase asks again. Every extra call is
billed to the session that made it.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from shared.adapters.reasoning.roles import ROLES
from shared.core.config import Settings
from tests.e2e.polling import wait_terminal
from tests.e2e.test_llm_deep_research import schema_of
from tests.fakes.openai_server import FakeOpenAIServer, schema_aware_responder
from tests.fakes.small_corpus import write_corpus

pytestmark = pytest.mark.e2e

QUERY = "How does the Python global interpreter lock affect threads?"
RESEARCH = {
    "num_agents": 1,
    "agent_max_steps": 3,
    "search_iterations": 1,
    "max_iterations": 1,
    "enable_clarifying_questions": False,
}


def test_every_mode_answers_with_follow_up_questions(start_devhost, tmp_path: Path) -> None:
    with FakeOpenAIServer(schema_aware_responder) as llm:
        settings = Settings(
            data_dir=tmp_path / "data",
            openai_base_url=llm.base_url,
            openai_api_key="test",
            search_provider="local",
            local_corpus_path=write_corpus(tmp_path / "corpus"),
        )
        host = start_devhost(settings)
        answers, views = {}, {}
        with httpx.Client(base_url=host.url, timeout=30) as api:
            for mode in ("chat", "search", "deep_search", "deep_research"):
                body = {"query": f"{QUERY} ({mode})", "mode": mode, "chat_id": mode}
                if mode == "deep_research":
                    body["options"] = RESEARCH
                started = api.post("/api/research", json=body)
                assert started.status_code in (200, 202), started.text
                view = wait_terminal(api, started.json()["session_id"], 180)
                assert view["status"] == "completed", (mode, view)
                report = api.get(
                    f"/api/research/{view['session_id']}/report", params={"format": "json"}
                )
                assert report.status_code == 200, report.text
                answers[mode], views[mode] = report.json(), view
        asked = [r for r in llm.requests if schema_of(r) == "Questions"]

    for mode, answer in answers.items():
        assert 3 <= len(answer["follow_up_questions"]) <= 5, (mode, answer)
    # One call of their own per answer, to the strategic model, for this answer's question.
    role = ROLES["follow_up_questions"]
    assert len(asked) == 3, [r.prompt_text[:80] for r in asked]
    for request, mode in zip(asked, ("chat", "search", "deep_search"), strict=True):
        assert request.json["model"] == settings.strategic_model
        assert request.json["temperature"] == role.temperature == 0.7
        assert f"({mode})" in request.prompt_text
        assert all(f"({mode})" in q for q in answers[mode]["follow_up_questions"]), mode
    # The report's own questions came with the report, in the user's words.
    assert answers["deep_research"]["follow_up_questions"]
    # Billed to the session that asked: every answered call is in some session's usage.
    assert sum(v["usage"]["llm_calls"] for v in views.values()) == len(llm.requests)
