"""The offline analyst and critic: the chain's roles by rule, so a run without a model goes
through the same steps; and the methodology note the report carries."""

from __future__ import annotations

from shared.adapters.reasoning.offline_analyst import analyze_findings, critique
from shared.adapters.report.markdown import render_report_markdown
from shared.core.report_models import FinalReport, ReportMaterial, ReportSection
from shared.core.research_models import Finding, KeyFinding, ResearchContext, ResearchTopic
from shared.core.source_models import Source
from shared.usecases.research.chain_notes import AnalystRecord, methodology_note

A, B = "https://a.example/x", "https://b.example/y"


def material(policy: str = "discovery") -> ReportMaterial:
    context = ResearchContext(
        session_id="s1", query="How do Python generators work?", source_policy=policy
    )
    findings = [
        Finding(
            agent_id=1,
            topic="Basics",
            key_findings=[KeyFinding(text="A generator pauses at yield.", source_urls=[A, B])],
        )
    ]
    sources = [Source(n=1, url=A, tier=1), Source(n=2, url=B, tier=4)]
    return ReportMaterial(context=context, findings=findings, sources=sources)


def test_an_open_topic_makes_the_offline_analyst_ask_for_a_search() -> None:
    open_topic = ResearchTopic(id=2, title="Memory use")

    asked = analyze_findings(material(), [open_topic])
    ready = analyze_findings(material(), [])

    assert asked.verdict == "SEARCH_REQUIRED"
    assert asked.new_queries == ["Python generators Memory use"]
    assert asked.missing_information == ["Nothing was found on the planned topic 'Memory use'."]
    assert asked.core_findings == ["A generator pauses at yield. [1][2]"]
    assert asked.reasoning_type == "induction"  # two sources
    assert ready.verdict == "READY" and ready.new_queries == []


def test_the_offline_critic_fills_the_assessment_a_model_would() -> None:
    sections = [
        ReportSection(heading="Pausing", content="A generator pauses at yield [2]."),
        ReportSection(heading="Both", content="It resumes with next [1][2]."),
        ReportSection(heading="Again", content="State is kept [1][2]."),
    ]
    report = FinalReport(title="t", executive_summary="s", sections=sections, conclusion="c")

    strict = critique(report, material("strict"))
    open_ = critique(report, material("discovery"))

    assert strict.mode_compliance == "non_compliant"
    assert any("tiers 1-2 only; cited: [2]" in i for i in strict.source_issues)
    assert open_.mode_compliance == "compliant"
    assert len(open_.logical_gaps) == 1 and "'Pausing'" in open_.logical_gaps[0]
    assert open_.suggestions  # a fix for the gap
    assert open_.verdict == "WARN" and strict.verdict == "WARN"  # noted, not rewritten


def test_the_methodology_note_is_a_section_of_the_report() -> None:
    record = AnalystRecord(analysis=analyze_findings(material(), []), iteration=2)
    note = methodology_note(record, findings=3, sources=5, language="en")
    sections = [ReportSection(heading=f"H{i}", content="x") for i in (1, 2, 3)]
    report = FinalReport(
        title="t", executive_summary="s", sections=sections, conclusion="c", methodology_note=note
    )

    markdown = render_report_markdown(report, "q", "deep_research")

    assert "3 research findings from 5 sources" in note
    assert "One more round of searches ran" in note  # iteration 2: after the search round
    assert f"## Methodology\n\n{note}" in markdown
    assert markdown.index("## Methodology") < markdown.index("**Confidence")
