"""The model's completeness check through the real openai client and the HTTP-level fake.

What the model says is checked before anyone relies on it: a quote it cannot show in
the summaries proves nothing, and a later round judges the topics the first one named.
"""

from __future__ import annotations

from pathlib import Path

from shared.adapters.reasoning.llm import LLMReasoner
from shared.adapters.reasoning.llm_client import LLMClient
from shared.core.config import Settings
from shared.core.source_models import PageSummary
from tests.fakes import openai_server
from tests.fakes.openai_server import FakeOpenAIServer, json_completion

fake_openai = openai_server.fake_openai  # the fixture, registered in this module

QUOTE = "pip is the package installer for Python."
SUMMARIES = [
    PageSummary(
        url="https://a.example/pip",
        title="pip",
        summary=f"{QUOTE} It installs packages from the Python Package Index.",
    )
]


def reasoner(server: FakeOpenAIServer, tmp_path: Path) -> LLMReasoner:
    settings = Settings(
        openai_base_url=server.base_url,
        openai_api_key="test",
        data_dir=tmp_path,
        fast_model="fast-x",
    )
    return LLMReasoner(settings, client=LLMClient(settings, initial_backoff=0.05))


def test_topics_are_judged_on_quotes_the_pages_hold(fake_openai, tmp_path) -> None:
    fake_openai.enqueue(
        json_completion(
            {
                "topics": [
                    {
                        "topic": "Definition",
                        "evidence": QUOTE,
                        "gaps": [],
                        "score": 0.9,
                        "covered": True,
                        "gap_query": "",
                    },
                    {
                        "topic": "Steps",
                        "evidence": "Run pip install requests in a terminal.",  # not in a page
                        "gaps": [],
                        "score": 0.8,
                        "covered": True,
                        "gap_query": "pip install package steps",
                    },
                ],
                "needs": ["definition", "steps"],
                "missing": ["steps"],
                "navigation_only": False,
                "content_queries": ["how to install a package with pip step by step"],
            }
        )
    )

    review = reasoner(fake_openai, tmp_path).evaluate_completeness(
        "How to install a package with pip?", ["Definition", "Steps"], SUMMARIES, "en"
    )

    definition, steps = review.topics
    assert definition.covered and definition.score == 0.9 and definition.evidence == QUOTE
    assert not steps.covered and steps.evidence == "" and steps.score == 0.5
    assert steps.gaps and steps.gap_query == "pip install package steps"
    assert review.gap_queries == ["pip install package steps"]
    assert review.content.missing == ["steps"] and not review.content.ok
    assert review.content_queries == ["how to install a package with pip step by step"]

    sent = fake_openai.requests[0]
    assert sent.json["model"] == "fast-x"
    assert sent.json["response_format"]["json_schema"]["name"] == "CompletenessReply"
    prompt = sent.prompt_text
    assert "judge exactly these topics" in prompt and "- Definition" in prompt
    assert QUOTE in prompt  # the summaries are what it judges


def test_the_first_round_lets_the_model_name_the_topics(fake_openai, tmp_path) -> None:
    fake_openai.enqueue(json_completion({"topics": [], "needs": [], "missing": []}))

    reasoner(fake_openai, tmp_path).evaluate_completeness("What is pip?", [], SUMMARIES, "en")

    prompt = fake_openai.requests[0].prompt_text
    assert "name the 3-6 topics" in prompt and '"What is X" -> definition' in prompt
