"""The model's corrective judge through the real openai client and the HTTP-level fake.

The model says whether a collection's passages cover a topic and quotes them; the code
keeps only the quotes the passages hold verbatim, and a "covered" left without one is
not covered, so the web fallback is never skipped on a sentence the model made up.
"""

from __future__ import annotations

import json
from pathlib import Path

from shared.adapters.reasoning.llm import LLMReasoner
from shared.adapters.reasoning.llm_client import LLMClient
from shared.core.ask_models import Passage
from shared.core.config import Settings
from tests.fakes import openai_server
from tests.fakes.openai_server import FakeOpenAIServer, json_completion

fake_openai = openai_server.fake_openai  # the fixture, registered in this module

TOPIC = "When was the coolant pump seal replaced?"
QUOTE = "The coolant pump seal was replaced in March 2021 after a leak in the primary loop."
PASSAGES = [
    Passage(n=1, url="/api/collections/c/documents/d#page=3", text=f"Maintenance log. {QUOTE}"),
    Passage(n=2, url="/api/collections/c/documents/e", text="Seal inspections are quarterly."),
]


def reasoner(server: FakeOpenAIServer, tmp_path: Path) -> LLMReasoner:
    settings = Settings(
        openai_base_url=server.base_url,
        openai_api_key="test",
        data_dir=tmp_path,
        fast_model="fast-x",
    )
    return LLMReasoner(settings, client=LLMClient(settings, initial_backoff=0.05))


def test_a_covered_verdict_keeps_the_quotes_the_passages_hold(fake_openai, tmp_path) -> None:
    made_up = "The seal was last replaced in 2019."
    fake_openai.enqueue(
        json_completion(
            {"evidence": [QUOTE, made_up], "reason": "page 3 dates it", "covered": True}
        )
    )

    verdict = reasoner(fake_openai, tmp_path).judge_coverage(TOPIC, PASSAGES, "en")

    assert (verdict.covered, verdict.evidence) == (True, [QUOTE])
    assert verdict.reason == "page 3 dates it"
    sent = fake_openai.requests[0]
    assert sent.json["model"] == "fast-x" and sent.json["temperature"] == 0.0
    assert sent.json["response_format"]["json_schema"]["name"] == "CoverageReply"
    assert sent.json["response_format"]["json_schema"]["strict"] is True
    prompt = sent.prompt_text
    assert f"<query>\n{TOPIC}\n</query>" in prompt
    assert '<source n="1" url="/api/collections/c/documents/d#page=3"' in prompt
    assert QUOTE in prompt and "copied verbatim" in prompt


def test_covered_on_quotes_no_passage_holds_is_not_covered(fake_openai, tmp_path) -> None:
    fake_openai.enqueue(
        json_completion(
            {
                "evidence": ["The seal was replaced in March.", "Seal inspections are monthly."],
                "reason": "it is covered",
                "covered": True,
            }
        )
    )

    verdict = reasoner(fake_openai, tmp_path).judge_coverage(TOPIC, PASSAGES, "en")

    assert (verdict.covered, verdict.evidence) == (False, [])


def test_no_passage_is_not_covered_without_asking_the_model(fake_openai, tmp_path) -> None:
    verdict = reasoner(fake_openai, tmp_path).judge_coverage(TOPIC, [], "en")

    assert not verdict.covered and verdict.reason
    assert fake_openai.requests == []


def test_the_prompt_asks_for_the_reason_in_the_users_language(fake_openai, tmp_path) -> None:
    fake_openai.enqueue(json_completion({"evidence": [], "reason": "Nein.", "covered": False}))

    reasoner(fake_openai, tmp_path).judge_coverage(TOPIC, PASSAGES, "de")

    body = json.dumps(fake_openai.requests[0].json, ensure_ascii=False)
    assert "German" in body
