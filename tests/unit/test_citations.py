"""Citation integrity and sentence dedupe on FinalReport (pure functions)."""

from __future__ import annotations

import pytest

from shared.adapters.reasoning import offline_report
from shared.adapters.reasoning.context_budget import extractive_summary
from shared.adapters.report.citations import (
    cited_numbers,
    dedupe_sentences,
    enforce_citations,
    renumber_answer,
    strip_unknown_citations,
)
from shared.core.report_models import FinalReport, ReportMaterial, ReportSection, SynthesizedAnswer
from shared.core.research_models import Finding, KeyFinding, ResearchContext
from shared.core.source_models import Source
from shared.usecases.research.compress import compress

ALLOWED = [
    Source(n=1, url="https://a.example/one", title="One", tier=1),
    Source(n=2, url="https://b.example/two", title="Two", tier=2),
    Source(n=3, url="https://c.example/three", title="Three"),
]


def _report(**overrides) -> FinalReport:
    fields = {
        "title": "Report",
        "executive_summary": "Water boils at 100 °C at sea level [1]. Pressure matters [7].",
        "sections": [
            ReportSection(heading="Physics", content="Boiling depends on pressure [1, 7]."),
            ReportSection(heading="Altitude", content="At altitude it boils lower [2][9]."),
            ReportSection(heading="Cooking", content="Pasta takes longer up high."),
        ],
        "conclusion": "Mind the altitude [2].",
        "sources": [*ALLOWED, Source(n=7, url="https://made-up.example/", title="Invented")],
        "confidence_level": "high",
    }
    fields.update(overrides)
    return FinalReport(**fields)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("claim [3].", {3}),
        ("claims [1, 2] and [4,5].", {1, 2, 4, 5}),
        ("a model's list [1; 2]", {1, 2}),
        ("adjacent [1][2]", {1, 2}),
        ("a range [2-4] and [6–7]", {2, 3, 4, 6, 7}),
        ("a link [3](https://x.example) is not a citation", set()),
        ("no citations [a] or [] here", set()),
        ("an absurd range [1-100000] keeps only its ends", {1, 100000}),
    ],
)
def test_cited_numbers(text: str, expected: set[int]):
    assert cited_numbers(text) == expected


def test_unknown_citations_are_removed_and_confidence_lowered():
    fixed, problems = enforce_citations(_report(), ALLOWED)

    assert fixed.executive_summary == ("Water boils at 100 °C at sea level [1]. Pressure matters.")
    assert fixed.sections[0].content == "Boiling depends on pressure [1]."
    assert fixed.sections[1].content == "At altitude it boils lower [2]."
    assert fixed.conclusion == "Mind the altitude [2]."
    assert fixed.confidence_level == "medium"
    assert any("[7]" in w and "[9]" in w for w in fixed.warnings)
    assert {p for p in problems if "[7]" in p}
    assert {p for p in problems if "[9]" in p}
    assert any("made-up.example" in p for p in problems)


def test_sources_become_the_cited_subset_with_their_numbers():
    fixed, _ = enforce_citations(_report(), ALLOWED)

    assert [(s.n, s.url) for s in fixed.sources] == [
        (1, "https://a.example/one"),
        (2, "https://b.example/two"),
    ]
    for n in cited_numbers(fixed.executive_summary + fixed.conclusion):
        assert n in {s.n for s in fixed.sources}


def test_clean_report_is_left_alone():
    report = _report(
        executive_summary="Water boils at 100 °C [1].",
        sections=[
            ReportSection(heading="A", content="Pressure [1-2]."),
            ReportSection(heading="B", content="More [3]."),
            ReportSection(heading="C", content="Plain."),
        ],
        conclusion="Done [2].",
        sources=ALLOWED,
        confidence_level="high",
    )

    fixed, problems = enforce_citations(report, ALLOWED)

    assert problems == []
    assert fixed.confidence_level == "high"
    assert fixed.warnings == []
    assert fixed.sections[0].content == "Pressure [1-2]."
    assert [s.n for s in fixed.sources] == [1, 2, 3]


def test_confidence_never_drops_below_low_and_input_is_untouched():
    report = _report(confidence_level="low")

    fixed, _ = enforce_citations(report, ALLOWED)

    assert fixed.confidence_level == "low"
    assert "[7]" in report.executive_summary


def test_dedupe_keeps_first_occurrence_across_the_report():
    repeated = "Boiling point falls by about one degree per 300 metres [2]."
    report = _report(
        executive_summary=f"Summary first sentence here. {repeated}",
        sections=[
            ReportSection(heading="A", content=f"{repeated} New insight about pressure cookers."),
            ReportSection(
                heading="B", content=f"- {repeated}\n- A different bullet point entirely."
            ),
            ReportSection(heading="C", content="| col |\n|---|\n| Short. |\n\nOk."),
        ],
        conclusion="Boiling point falls by about one degree per 300 metres [5]!",
    )

    deduped = dedupe_sentences(report)

    assert deduped.executive_summary == report.executive_summary
    assert deduped.sections[0].content == "New insight about pressure cookers."
    assert deduped.sections[1].content == "- A different bullet point entirely."
    assert deduped.sections[2].content == report.sections[2].content
    assert deduped.conclusion == ""


def test_dedupe_handles_chinese_sentences():
    report = _report(
        executive_summary="量子计算利用量子比特进行并行计算和复杂运算。它很有前途。",
        sections=[
            ReportSection(
                heading="一",
                content="量子计算利用量子比特进行并行计算和复杂运算。新的内容在这里出现了很多。",
            ),
            ReportSection(heading="二", content="其他。"),
            ReportSection(heading="三", content="更多。"),
        ],
    )

    deduped = dedupe_sentences(report)

    assert deduped.sections[0].content == "新的内容在这里出现了很多。"


def test_citation_warning_is_in_the_report_language():
    fixed, _ = enforce_citations(_report(language="ru"), ALLOWED)

    assert any("[7]" in w and "уверенность понижена" in w for w in fixed.warnings)


def test_sources_are_renumbered_one_to_n_in_order_of_first_citation() -> None:
    from shared.adapters.report.citations import renumber_by_first_citation

    sources = [Source(n=n, url=f"https://example.org/{n}", title=f"S{n}") for n in (2, 6, 11, 9)]
    report = FinalReport(
        title="T",
        executive_summary="First claim [11]. Second claim [2, 11].",
        sections=[
            ReportSection(heading="A", content="Range [2-6] here."),
            ReportSection(heading="B", content="Nothing cited."),
            ReportSection(heading="C", content="Again [11]; a link [x](https://a)."),
        ],
        conclusion="Done [6].",
        sources=sources,
    )
    out = renumber_by_first_citation(report)

    assert [(s.n, s.url) for s in out.sources] == [
        (1, "https://example.org/11"),
        (2, "https://example.org/2"),
        (3, "https://example.org/6"),
    ]  # 9 was never cited: dropped; no gaps
    assert out.executive_summary == "First claim [1]. Second claim [1, 2]."
    assert out.sections[0].content == "Range [2, 3] here."  # of 2..6 only 2 and 6 exist
    assert out.sections[2].content == "Again [1]; a link [x](https://a)."
    assert out.conclusion == "Done [3]."


def test_a_search_answer_is_numbered_one_to_n_by_first_citation():
    answer = SynthesizedAnswer(
        answer="Late [3]. Early [1, 3].",
        key_points=["Late [3]."],
        sources=[*ALLOWED, Source(n=4, url="https://d.example/uncited")],
    )
    renumbered = renumber_answer(answer)
    assert renumbered.answer == "Late [1]. Early [1, 2]."
    assert renumbered.key_points == ["Late [1]."]
    assert [(s.n, s.title) for s in renumbered.sources] == [(1, "Three"), (2, "One")]


# -- one syntax for everybody who reads [n] ------------------------------------------------


def test_a_search_answer_loses_unknown_citations_and_the_space_before_them():
    text = "Heat pumps work in the cold [1; 9]. Efficiency drops [9]."

    assert (
        strip_unknown_citations(text, {1}) == "Heat pumps work in the cold [1]. Efficiency drops."
    )


def test_the_offline_critic_reads_a_citation_list_like_the_report_does():
    """ "[1, 7]" cites 7 for the report's citation check, so the critic must see it too."""
    report = _report(
        executive_summary="Water boils at 100 °C [1, 7].",
        sections=[
            ReportSection(heading=f"S{i}", content="Boiling depends on pressure [1, 2].")
            for i in range(3)
        ],
        conclusion="Mind the altitude [2].",
    )
    material = ReportMaterial(context=ResearchContext(session_id="s", query="q"), sources=ALLOWED)

    verdict = offline_report.critique(report, material)

    assert verdict.verdict == "REJECT"
    assert "citation [7] is not a provided source" in verdict.issues
    assert not any("without citations" in issue for issue in verdict.issues)


def test_a_draft_summary_keeps_sentences_cited_with_a_list():
    text = "Opening sentence here. A claim backed twice [2, 3]. An uncited aside."

    assert extractive_summary(text, 1_000) == "Opening sentence here. A claim backed twice [2, 3]."


def test_compression_merges_a_key_finding_repeated_with_and_without_its_marker():
    """Compression and the report's dedupe compare sentences by the same key."""
    findings = [
        Finding(
            agent_id=agent,
            topic="Boiling",
            topic_id=1,
            todo_id=f"todo-{agent}",
            key_findings=[KeyFinding(text=text, source_urls=[source.url])],
            sources=[source],
        )
        for agent, text, source in (
            (1, "Water boils at 100 °C at sea level.", ALLOWED[0]),
            (2, "Water boils at 100 °C at sea level [1].", ALLOWED[1]),
        )
    ]

    merged = compress(findings)

    (key,) = [k for f in merged.findings for k in f.key_findings]
    assert key.source_urls == [ALLOWED[0].url, ALLOWED[1].url]
