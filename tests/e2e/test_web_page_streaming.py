"""The web page shows the answer as the model writes it (``api/static/writing.js``).

A real browser against devhost with the LLM reasoner on the OpenAI-protocol fake,
which holds the answer's reply half-way (``HeldAnswer``): the page must show the
text written so far while the session is still running and no report is shown,
then the rendered answer once the reply is let go and the session ends.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.core.config import Settings
from tests.e2e.browser import RUN_S
from tests.e2e.test_answer_streaming import ANSWER, HeldAnswer
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.small_corpus import write_corpus

pytestmark = pytest.mark.e2e

FIRST_WORDS = " ".join(ANSWER.split()[:4])


def test_the_page_shows_the_answer_while_it_is_written(
    start_devhost, tmp_path: Path, open_page
) -> None:
    from playwright.sync_api import expect

    gate = HeldAnswer()
    with FakeOpenAIServer(gate) as llm:
        llm.stream_hold = gate.hold
        host = start_devhost(
            Settings(
                data_dir=tmp_path / "data",
                openai_base_url=llm.base_url,
                openai_api_key="test",
                search_provider="local",
                local_corpus_path=write_corpus(tmp_path / "corpus"),
            )
        )
        try:
            page, seen = open_page(f"{host.url}/api/ui")
            page.get_by_label("Question", exact=True).fill("How does the GIL affect threads?")
            page.get_by_label("Mode", exact=True).select_option(label="Search")
            page.get_by_role("button", name="Start").click()

            writing = page.locator("#writing")
            expect(writing).to_be_visible(timeout=RUN_S)
            expect(page.locator("#writing-text")).to_contain_text(FIRST_WORDS, timeout=RUN_S)
            shown = page.locator("#writing-text").text_content()
            # the reply is held: the session cannot have ended, no report is on the page
            assert ANSWER.startswith(shown) and len(shown) < len(ANSWER), shown
            expect(page.locator("#status")).not_to_have_text("completed")
            expect(page.locator("#report")).to_be_hidden()
            assert writing.get_attribute("data-done") == "false"

            gate.release.set()
            expect(page.locator("#status")).to_have_text("completed", timeout=RUN_S)
            expect(page.locator("#report")).to_be_visible(timeout=RUN_S)
            expect(page.locator("#report")).to_contain_text(ANSWER.split(". ")[-1].strip("."))
            expect(writing).to_be_hidden()
            seen.assert_clean()
        finally:
            gate.release.set()
