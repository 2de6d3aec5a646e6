"""The analyst step over the memory files, with the offline reasoner: what it reads (the
compressed evidence, the plan's uncovered topics), what it writes (analyst.json for the
writer, a section of analyst.md per reading) and what the orchestrator gets back."""

from __future__ import annotations

from shared.bootstrap import AppServices
from shared.core.chain_payloads import AnalyzeIn
from shared.core.config import Settings
from shared.core.research_models import (
    Finding,
    KeyFinding,
    QueryAnalysis,
    ResearchContext,
    ResearchPlan,
    ResearchTopic,
)
from shared.core.source_models import Source
from shared.usecases.research import memory_files
from shared.usecases.research.analysis_chain import analyze_findings
from shared.usecases.research.chain_notes import ANALYST_MD, read_analyst
from shared.usecases.research.compress import COMPRESSED, compress

SID = "s-analyst"
TOPICS = [ResearchTopic(id=1, title="Context managers"), ResearchTopic(id=2, title="Exceptions")]


def services(tmp_path) -> AppServices:
    svc = AppServices(Settings(data_dir=tmp_path, reasoner="offline", search_provider="local"))
    finding = Finding(
        agent_id=1,
        topic="Context managers",
        topic_id=1,
        key_findings=[KeyFinding(text="with calls __enter__.", source_urls=["corpus://with"])],
        sources=[Source(url="corpus://with", title="With")],
    )
    svc.memory.write(SID, COMPRESSED, compress([finding]).model_dump_json(), "application/json")
    planned = memory_files.PlannedResearch(
        analysis=QueryAnalysis(query_type="how_to", complexity="simple"),
        plan=ResearchPlan(topics=TOPICS),
    )
    memory_files.write_analysis(svc.memory, SID, planned)
    return svc


def test_the_analyst_asks_for_the_uncovered_topic_and_records_each_reading(tmp_path) -> None:
    svc = services(tmp_path)
    context = ResearchContext(session_id=SID, query="How does the with statement work?")

    first = analyze_findings(svc, AnalyzeIn(context=context))
    again = analyze_findings(svc, AnalyzeIn(context=context))  # a retried activity
    second = analyze_findings(svc, AnalyzeIn(context=context, iteration=2))

    assert first.verdict == "SEARCH_REQUIRED"
    assert first.new_queries == ["the with statement Exceptions"]
    assert first.topic_ids == [2]  # the query searches for the uncovered topic
    assert first.citations == 1 and first.preview == "with calls __enter__. [1]"
    assert again == first
    record = read_analyst(svc.memory, SID)
    assert record is not None and record.iteration == 2 and second.verdict == first.verdict
    log = svc.memory.read_text(SID, ANALYST_MD)
    assert log.count("## Analysis 1") == 1 and log.count("## Analysis 2") == 1
    assert "**Verdict:** SEARCH_REQUIRED" in log and "- the with statement Exceptions" in log
