"""The web page shows where a finished run's time and money went, phase by phase.

A real browser against devhost over HTTP; the LLM reasoner against the
OpenAI-protocol fake, so the model calls, tokens and cost are real figures.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from shared.core.config import Settings
from tests.e2e.browser import RUN_S
from tests.e2e.polling import wait_terminal
from tests.fakes.openai_server import FakeOpenAIServer, schema_aware_responder
from tests.fakes.small_corpus import write_corpus

pytestmark = pytest.mark.e2e

OPTIONS = {"num_agents": 1, "agent_max_steps": 2, "enable_clarifying_questions": False}


def test_a_finished_research_lists_its_phases_with_time_calls_tokens_and_cost(
    start_devhost, tmp_path: Path, open_page
) -> None:
    from playwright.sync_api import expect

    with FakeOpenAIServer(schema_aware_responder) as fake_llm:
        host = start_devhost(
            Settings(
                data_dir=tmp_path / "data",
                openai_base_url=fake_llm.base_url,
                openai_api_key="test",
                search_provider="local",
                local_corpus_path=write_corpus(tmp_path / "corpus"),
            )
        )
        with httpx.Client(base_url=host.url, timeout=30) as api:
            body = {"query": "How does the GIL affect Python threads?", "options": OPTIONS}
            session_id = api.post("/api/research", json=body).json()["session_id"]
            view = wait_terminal(api, session_id, 180)
        assert view["status"] == "completed", view

        page, seen = open_page(f"{host.url}/api/ui?session={session_id}")
        expect(page.locator("#status")).to_have_text("completed", timeout=RUN_S)

    table = page.get_by_role("region", name="Where time and money went")
    expect(table).to_be_visible()
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(len(view["phases"]) + 1)
    for i, phase in enumerate(view["phases"]):
        cells = rows.nth(i).locator("td")
        expect(cells.nth(0)).to_have_text(phase["phase"])
        expect(cells.nth(2)).to_have_text(str(phase["usage"]["llm_calls"]))
    usage = view["usage"]
    total = rows.last.locator("td")
    expect(total.nth(0)).to_have_text("total")
    expect(total.nth(2)).to_have_text(str(usage["llm_calls"]))
    expect(total.nth(3)).to_have_text(str(usage["prompt_tokens"] + usage["completion_tokens"]))
    expect(total.nth(4)).to_have_text(f"${usage['cost']:.4f}")
    assert usage["llm_calls"] > 0
    seen.assert_clean()
