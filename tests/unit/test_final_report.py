"""generate_final_report: the basis fallback chain, the critic's last word, citation
integrity. A tiny fake Reasoner stands in for the Reasoner port (unit test only)."""

from __future__ import annotations

import pytest

from shared.bootstrap import AppServices
from shared.core.config import Settings
from shared.core.errors import PermanentError, TransientError
from shared.core.payloads import Gap, ReportIn
from shared.core.report_models import Critique, FinalReport, ReportMaterial, ReportSection
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
from shared.usecases.research.compress import COMPRESSED, compress
from shared.usecases.research.final_report import REPORT_JSON, generate_final_report
from shared.usecases.research.page_cache import page_name

SID = "s1"
LONG = "The with statement calls enter and exit around its block of code. " * 10


class FakeReasoner:
    """Writes a valid report only on the bases it is told to; records what it was given."""

    name = "fake"

    def __init__(
        self, good_on: set[str], cite: str = "[1]", fail: type[Exception] | None = None
    ) -> None:
        self.good_on, self.cite, self.fail = good_on, cite, fail
        self.calls: list[str] = []
        self.primaries: list[str] = []

    def write_report(self, material: ReportMaterial) -> FinalReport:
        self.calls.append(material.primary_kind)
        self.primaries.append(material.primary)
        if self.fail:
            raise self.fail("model unavailable")
        body = f"{LONG}{self.cite}." if material.primary_kind in self.good_on else "Short."
        return FinalReport(
            title="Report",
            executive_summary=f"Summary of {material.primary_kind} {self.cite}.",
            sections=[ReportSection(heading=f"S{i}", content=body) for i in range(3)],
            conclusion="Done.",
            sources=list(material.sources),
            confidence_level="high",
            follow_up_questions=["What next?"],
        )

    def follow_up_questions(self, query: str, text: str, language: str) -> list[str]:
        return ["What next?"]


@pytest.fixture
def svc(tmp_path) -> AppServices:
    services = AppServices(Settings(data_dir=tmp_path, reasoner="offline", search_provider="local"))
    finding = Finding(
        agent_id=1,
        topic="How it works",
        topic_id=1,
        todo_id="todo-1",
        key_findings=[
            KeyFinding(text="The with statement calls enter.", source_urls=["corpus://with"])
        ],
        sources=[Source(url="corpus://with", title="With")],
    )
    evidence = compress([finding]).model_dump_json()
    services.memory.write(SID, COMPRESSED, evidence, "application/json")
    return services


def _context(**fields) -> ResearchContext:
    return ResearchContext(session_id=SID, query="How does the with statement work?", **fields)


def _write(
    svc: AppServices, fake: FakeReasoner, context: ResearchContext | None = None, **request
) -> tuple[str, FinalReport]:
    svc.__dict__["reasoner"] = fake
    out = generate_final_report(svc, ReportIn(context=context or _context(), **request))
    return out.basis, FinalReport.model_validate_json(svc.memory.read(SID, REPORT_JSON))


def _write_main_and_draft(svc: AppServices, draft: str) -> None:
    svc.memory.write(SID, memory_files.MAIN, "# Research Session - Main Index\n", "text/markdown")
    svc.memory.write(SID, memory_files.DRAFT, draft, "text/markdown")


def test_a_long_draft_is_the_first_basis(svc):
    _write_main_and_draft(svc, "# Research Report Draft\n\n" + LONG * 2)
    fake = FakeReasoner(good_on={"draft", "main", "findings"})
    assert _write(svc, fake)[0] == "draft" and fake.calls == ["draft"]


def test_a_short_draft_is_rebuilt_from_every_finding_before_main(svc):
    _write_main_and_draft(svc, "# Research Report Draft\n\ntoo short")
    fake = FakeReasoner(good_on={"main", "findings"})
    assert _write(svc, fake)[0] == "main" and fake.calls == ["draft", "draft", "main"]
    rebuilt = fake.primaries[0]
    assert "**Total Findings:** 1" in rebuilt
    assert "## Detailed Findings (Complete, No Truncation)" in rebuilt
    assert "- The with statement calls enter." in rebuilt and "(corpus://with)" in rebuilt


def test_an_invalid_report_is_retried_once_then_the_next_basis(svc):
    _write_main_and_draft(svc, "# Research Report Draft\n\n" + LONG * 2)
    fake = FakeReasoner(good_on={"findings"})
    basis, report = _write(svc, fake)
    assert basis == "findings" and fake.calls == ["draft", "draft", "main", "main", "findings"]
    assert [s.url for s in report.sources] == ["corpus://with"]


def test_a_transient_failure_is_left_to_the_durable_retry(svc):
    fake = FakeReasoner(good_on={"findings"}, fail=TransientError)
    with pytest.raises(TransientError):
        _write(svc, fake)
    assert fake.calls == ["draft"]  # no fallback basis spent on an outage


def test_when_everything_fails_the_minimal_report_says_what_happened(svc):
    basis, report = _write(svc, FakeReasoner(good_on=set(), fail=PermanentError))
    assert basis == "minimal" and report.confidence_level == "low"
    assert "model unavailable" in " ".join(s.content for s in report.sections)
    assert "The with statement calls enter." in report.sections[2].content  # nothing lost
    assert report.warnings and report.sources == []


def test_unknown_citations_are_removed_and_confidence_lowered(svc):
    basis, report = _write(svc, FakeReasoner(good_on={"findings"}, cite="[7]"))
    text = " ".join([report.executive_summary, *(s.content for s in report.sections)])
    assert basis == "findings" and "[7]" not in text
    assert report.confidence_level != "high"


def test_a_third_reject_attaches_the_critique_and_lowers_confidence(svc):
    critique = Critique(verdict="REJECT", issues=["claim without a source in S1"])
    _, kept = _write(svc, FakeReasoner(good_on={"findings"}), round=2, critique=critique)
    assert kept.confidence_level == "high" and not kept.warnings  # a revision is still due
    _, last = _write(svc, FakeReasoner(good_on={"findings"}), round=3, critique=critique)
    assert last.confidence_level == "medium"
    assert "Critic: claim without a source in S1" in last.warnings


def test_thin_evidence_still_gives_the_real_report_marked_low_confidence(svc):
    basis, report = _write(svc, FakeReasoner(good_on=set()))
    assert basis == "findings" and report.confidence_level == "low"
    assert any("evidence was thin" in w for w in report.warnings)
    assert report.sections[0].heading == "S0"  # the written report, not the minimal one


def test_agents_that_failed_are_named_in_the_report(svc):
    gap = Gap(kind="agent_failed", agent_id=2, topic="Pitfalls", error="TransientError: API down")
    _, report = _write(svc, FakeReasoner(good_on={"findings"}), gaps=[gap])
    assert report.limitations[0] == "Agent 2 failed on 'Pitfalls': TransientError: API down."
    assert "based only on the evidence gathered" in report.limitations[-1]


class RecordingReasoner(FakeReasoner):
    """Keeps the material of every write (what the writer was shown)."""

    def __init__(self) -> None:
        super().__init__(good_on={"reviewed", "draft", "main", "findings"})
        self.materials: list[ReportMaterial] = []

    def write_report(self, material: ReportMaterial) -> FinalReport:
        self.materials.append(material)
        return super().write_report(material)


def test_a_rewrite_edits_the_reviewed_report_not_the_draft(svc):
    _write_main_and_draft(svc, "# Research Report Draft\n\n" + LONG * 2)
    _write(svc, FakeReasoner(good_on={"draft"}))  # the first report, then a critique
    critique = Critique(issues=["S1 overstates [1]"], verdict="REJECT")
    writer = RecordingReasoner()

    basis, _ = _write(svc, writer, round=1, critique=critique)

    material = writer.materials[0]
    assert basis == "reviewed" and material.primary_kind == "reviewed"
    assert material.primary.startswith("# Report\n\n## Executive summary\n\nSummary of draft [1].")
    assert material.critique == critique


def test_the_writer_gets_the_analysis_the_passages_and_the_unresearched_topics(svc):
    plan = ResearchPlan(
        topics=[ResearchTopic(id=1, title="How it works"), ResearchTopic(id=2, title="Pitfalls")]
    )
    analysis = QueryAnalysis(query_type="fact", complexity="simple")
    memory_files.write_analysis(
        svc.memory, SID, memory_files.PlannedResearch(analysis=analysis, plan=plan)
    )
    writer = RecordingReasoner()

    _, report = _write(svc, writer)

    material = writer.materials[0]
    assert material.analysis == analysis
    assert material.gaps == ["topic 2 (Pitfalls) was planned but not researched"]
    assert report.limitations[0] == "Topic 2 (Pitfalls) was planned but not researched."


def test_sessions_planned_before_analysis_json_get_the_default_shape(svc):
    writer = RecordingReasoner()
    _write(svc, writer)
    assert writer.materials[0].analysis is None and writer.materials[0].gaps == []


# -- the report's own words, in the report's language ----------------------------------

EVERY_GAP = [
    Gap(kind="phase_failed", phase="compressing", error="PermanentError: disk full"),
    Gap(kind="deep_search_failed", error="TransientError: 503"),
    Gap(kind="agent_failed", agent_id=2, topic="Pitfalls", error="TransientError: API down"),
    Gap(kind="budget_no_research"),
    Gap(kind="budget_topics_skipped", topics=["Pitfalls", "Uses"]),
    Gap(kind="budget_stopped"),
]


def _with_unresearched_topic(svc: AppServices) -> None:
    plan = ResearchPlan(
        topics=[ResearchTopic(id=1, title="How it works"), ResearchTopic(id=2, title="Pitfalls")]
    )
    planned = memory_files.PlannedResearch(
        analysis=QueryAnalysis(query_type="fact", complexity="simple"), plan=plan
    )
    memory_files.write_analysis(svc.memory, SID, planned)


def _cyrillic(text: str) -> bool:
    return any("а" <= c.lower() <= "я" for c in text)


def test_a_russian_report_says_every_limit_in_russian(svc):
    _with_unresearched_topic(svc)
    critique = Critique(verdict="REJECT", issues=["claim without a source in S1"])
    russian = _context(language="ru", clarification_timed_out=True)

    _, report = _write(
        svc, FakeReasoner(good_on=set()), russian, gaps=EVERY_GAP, round=3, critique=critique
    )

    assert report.limitations == [
        "Этап «сжатие находок» завершился ошибкой (PermanentError: disk full).",
        "Глубокий поиск завершился ошибкой: TransientError: 503.",
        "Агент 2 не справился с темой «Pitfalls»: TransientError: API down.",
        "Исчерпан бюджет токенов или стоимости: исследование не проводилось, "
        "бюджета хватило только на отчёт.",
        "Исчерпан бюджет токенов или стоимости: не исследованы темы: Pitfalls, Uses.",
        "Исчерпан бюджет токенов или стоимости: исследование остановлено.",
        "Тема 2 (Pitfalls) была запланирована, но не исследована.",
        "Отчёт основан только на данных, собранных до этих ограничений.",
    ]
    assert report.warnings == [  # thin evidence, the unanswered questions, the critic
        "Данных оказалось мало: отчёт короче 1500 символов.",
        "На уточняющие вопросы не ответили до истечения времени ожидания; "
        "исследование велось по исходному вопросу.",
        "Рецензент: claim without a source in S1",
    ]
    markdown = svc.memory.read_text(SID, "report.md")
    assert "## Ограничения" in markdown
    assert "> **Примечание:** Данных оказалось мало" in markdown
    for english in ("failed", "was reached", "planned but", "evidence", "Critic", "unanswered"):
        assert english not in markdown


def test_an_english_report_keeps_its_english_limits(svc):
    _with_unresearched_topic(svc)
    _, report = _write(svc, FakeReasoner(good_on={"findings"}), gaps=EVERY_GAP)
    assert report.limitations == [
        "The compression phase failed (PermanentError: disk full).",
        "The deep search failed: TransientError: 503.",
        "Agent 2 failed on 'Pitfalls': TransientError: API down.",
        "The token or cost budget was reached: no research ran: "
        "the budget left room only for the report.",
        "The token or cost budget was reached: not researched: Pitfalls, Uses.",
        "The token or cost budget was reached: research stopped.",
        "Topic 2 (Pitfalls) was planned but not researched.",
        "The report is based only on the evidence gathered before these limits.",
    ]


def test_the_writer_is_told_the_limits_in_the_report_language(svc):
    _with_unresearched_topic(svc)
    writer = RecordingReasoner()
    _write(svc, writer, _context(language="ru"), gaps=EVERY_GAP[:1])
    assert writer.materials[0].gaps == [
        "этап «сжатие находок» завершился ошибкой (PermanentError: disk full)",
        "тема 2 (Pitfalls) была запланирована, но не исследована",
    ]


def test_a_russian_minimal_report_after_a_failed_phase_is_russian(svc):
    failed = Gap(kind="phase_failed", phase="planning", error="PermanentError: 400")
    russian = _context(language="ru")
    basis, report = _write(
        svc, FakeReasoner(good_on=set()), russian, failure="planning failed: 400", gaps=[failed]
    )

    assert basis == "minimal" and report.language == "ru"
    assert report.title == "Незавершённое исследование: How does the with statement work?"
    assert [s.heading for s in report.sections] == [
        "Что было спрошено",
        "Что не удалось",
        "Что было найдено до сбоя",
    ]
    assert report.sections[1].content == (
        "- Этап «планирование» завершился ошибкой (PermanentError: 400)."
    )
    assert "The with statement calls enter." in report.sections[2].content  # evidence as found
    assert _cyrillic(report.executive_summary) and _cyrillic(report.conclusion)
    assert report.limitations == ["Этап «планирование» завершился ошибкой (PermanentError: 400)."]
    assert report.warnings[0].startswith("Минимальный отчёт: этап «планирование»")


def test_when_every_writer_fails_a_russian_report_says_so_in_russian(svc):
    out_basis, report = _write(
        svc, FakeReasoner(good_on=set(), fail=PermanentError), _context(language="ru")
    )
    assert out_basis == "minimal"
    assert report.sections[1].content == (
        "- Этап «написание отчёта» завершился ошибкой (PermanentError: model unavailable)."
    )


def test_the_status_learns_why_only_a_minimal_report_exists_in_english(svc):
    svc.__dict__["reasoner"] = FakeReasoner(good_on=set(), fail=PermanentError)
    out = generate_final_report(svc, ReportIn(context=_context(language="ru")))
    assert out.basis == "minimal"
    assert out.failure == (
        "draft: PermanentError: model unavailable; findings: PermanentError: model unavailable"
    )
    assert out.warnings[0].startswith("Минимальный отчёт")  # the report's note, in Russian


def test_when_compression_failed_the_report_is_written_from_the_researchers_items(svc):
    svc.memory.delete_session(SID)  # compression never wrote findings.json
    finding = Finding(
        agent_id=1,
        topic="How it works",
        topic_id=1,
        todo_id="todo-1",
        key_findings=[KeyFinding(text="Exit runs even on errors.", source_urls=["corpus://b"])],
        sources=[Source(url="corpus://b", title="B")],
    )
    svc.memory.write(SID, "items/item_1.json", finding.model_dump_json(), "application/json")
    svc.memory.write(SID, "items/item_2.json", "{torn", "application/json")  # left out
    svc.memory.write(SID, "items/search_1_1.json", "{}", "application/json")  # a page, not one
    fake = FakeReasoner(good_on={"findings"})
    gap = Gap(kind="phase_failed", phase="compressing", error="OSError: disk full")
    basis, report = _write(svc, fake, failure="compressing failed: disk full", gaps=[gap])
    assert basis == "findings"  # not the minimal report: compression adds nothing
    assert [s.url for s in report.sources] == ["corpus://b"]
    assert any("compression phase failed" in line for line in report.limitations)

    writer = Gap(kind="phase_failed", phase="writing_report", error="ValueError: bad")
    basis, _ = _write(svc, fake, failure="writing_report failed", gaps=[gap, writer])
    assert basis == "minimal"  # a writer that failed is not asked again


def _evidence_without_sources(svc: AppServices, pages: int) -> None:
    """Findings whose claims all cited pages never read: grounding left them nothing."""
    finding = Finding(agent_id=1, topic="How it works", topic_id=1, todo_id="todo-1")
    svc.memory.write(SID, COMPRESSED, compress([finding]).model_dump_json(), "application/json")
    for n in range(pages):
        svc.memory.write(SID, page_name(f"https://docs.example/{n}"), "{}", "application/json")


def test_a_report_with_sources_has_nothing_to_explain(svc):
    svc.__dict__["reasoner"] = FakeReasoner(good_on={"findings"})
    assert generate_final_report(svc, ReportIn(context=_context())).unsourced is None


def test_the_status_learns_why_a_report_has_no_sources_when_pages_were_read(svc):
    _evidence_without_sources(svc, pages=2)
    svc.__dict__["reasoner"] = FakeReasoner(good_on={"findings"})
    out = generate_final_report(svc, ReportIn(context=_context(language="ru")))
    assert out.basis == "findings" and out.source_count == 0
    assert out.unsourced == (
        "the report has no sources: the findings cite none of the pages read (2; "
        "the model cited pages it never read, or none)"
    )


def test_the_status_learns_why_a_report_has_no_sources_when_nothing_was_read(svc):
    _evidence_without_sources(svc, pages=0)
    svc.__dict__["reasoner"] = FakeReasoner(good_on={"findings"})
    out = generate_final_report(svc, ReportIn(context=_context()))
    assert out.unsourced == "the report has no sources: no page could be read"


def test_the_status_learns_when_the_writer_cited_none_of_the_findings_sources(svc):
    svc.__dict__["reasoner"] = FakeReasoner(good_on={"findings"}, cite="")
    out = generate_final_report(svc, ReportIn(context=_context()))
    assert out.source_count == 0
    assert out.unsourced == (
        "the report has no sources: it cites none of the sources the findings rest on (1)"
    )


def test_a_minimal_report_is_explained_by_its_failure_not_by_its_sources(svc):
    svc.__dict__["reasoner"] = FakeReasoner(good_on=set(), fail=PermanentError)
    out = generate_final_report(svc, ReportIn(context=_context()))
    assert out.basis == "minimal" and out.failure and out.unsourced is None
