"""The analyst and the critic of the LLM reasoner through the real openai client against
the HTTP-level fake: the schema each sends (the critic's assessment before its verdict,
the analyst's likewise), what the prompts ask for, and how replies are checked."""

from __future__ import annotations

from pathlib import Path

from shared.adapters.reasoning.llm import LLMReasoner
from shared.adapters.reasoning.llm_client import LLMClient
from shared.core.config import Settings
from shared.core.report_models import FinalReport, ReportMaterial, ReportSection
from shared.core.research_models import Finding, KeyFinding, ResearchContext, ResearchTopic
from shared.core.source_models import Source
from tests.e2e.test_llm_deep_research import schema_of
from tests.fakes import openai_server
from tests.fakes.openai_server import FakeOpenAIServer, json_completion

fake_openai = openai_server.fake_openai

URL = "https://docs.example/gil"
ASSESSMENT = ["issues", "suggestions", "mode_compliance", "logical_gaps", "source_issues"]


def _reasoner(server: FakeOpenAIServer, tmp_path: Path) -> LLMReasoner:
    settings = Settings(openai_base_url=server.base_url, openai_api_key="t", data_dir=tmp_path)
    return LLMReasoner(settings, client=LLMClient(settings, initial_backoff=0.05))


def _material(policy: str = "strict") -> ReportMaterial:
    context = ResearchContext(session_id="s1", query="Why is the GIL kept?", source_policy=policy)
    finding = Finding(
        agent_id=1,
        topic="History",
        key_findings=[KeyFinding(text="The GIL simplifies reference counting.", source_urls=[URL])],
        sources=[Source(n=1, url=URL, title="GIL")],
    )
    return ReportMaterial(
        context=context, findings=[finding], sources=[Source(n=1, url=URL, title="GIL", tier=1)]
    )


def _report() -> FinalReport:
    sections = [ReportSection(heading=f"S{i}", content="The GIL stays [1].") for i in (1, 2, 3)]
    return FinalReport(title="GIL", executive_summary="x", sections=sections, conclusion="y")


def test_the_critic_schema_puts_its_assessment_before_the_verdict(
    fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    critique = _reasoner(fake_openai, tmp_path).critique(_report(), _material())

    (request,) = fake_openai.requests
    assert schema_of(request) == "Critique"
    schema = request.json["response_format"]["json_schema"]["schema"]
    fields = list(schema["properties"])
    assert fields[-1] == "verdict"
    assert set(ASSESSMENT) <= set(fields[:-1])
    assert fields.index("missing_information") < fields.index("verdict")
    prompt = request.prompt_text
    for check in ("deduction", "sample size", "representative", "alternative explanations"):
        assert check in prompt
    assert "correlation vs causation" in prompt and "tiers 1-2" in prompt  # the strict policy
    assert critique.verdict in ("PASS", "WARN", "REJECT")


def test_the_analyst_asks_for_searches_only_with_queries_and_caps_them(
    fake_openai: FakeOpenAIServer, tmp_path: Path
) -> None:
    reasoner = _reasoner(fake_openai, tmp_path)
    asked = {
        "core_findings": ["The GIL simplifies reference counting [1]."],
        "logical_inference": "One source states it.",
        "reasoning_type": "deduction",
        "missing_information": ["No benchmark of free-threaded builds."],
        "verdict": "SEARCH_REQUIRED",
        "new_queries": ["free-threaded python benchmark", "Free-threaded Python benchmark"],
    }
    fake_openai.enqueue(json_completion(asked), json_completion({**asked, "new_queries": []}))
    topic = ResearchTopic(id=2, title="Free-threaded builds")

    analysis = reasoner.analyze_findings(_material(), [topic])
    empty = reasoner.analyze_findings(_material(), [])

    first = fake_openai.requests[0]
    assert schema_of(first) == "Analysis"
    fields = list(first.json["response_format"]["json_schema"]["schema"]["properties"])
    assert (
        fields.index("missing_information") < fields.index("verdict") < fields.index("new_queries")
    )
    assert "Free-threaded builds" in first.prompt_text  # the open topic is named
    assert analysis.verdict == "SEARCH_REQUIRED"
    assert analysis.new_queries == ["free-threaded python benchmark"]  # one, not two
    assert empty.verdict == "READY"  # SEARCH_REQUIRED without a query cannot run a search
