"""The report's fallback chain, its quality score and its "Also consulted" list (issue 29
items 6-8), through ``generate_final_report`` with the fake Reasoner of
``test_final_report`` (unit level; the e2e is ``tests/e2e/test_report_chain.py``)."""

from __future__ import annotations

import json
import logging

from shared.core.errors import PermanentError
from shared.core.payloads import ReportIn
from shared.core.report_models import Critique
from shared.core.source_models import Page
from shared.usecases.research import memory_files
from shared.usecases.research.final_report import REPORT_MD, generate_final_report
from shared.usecases.research.page_cache import page_name
from tests.unit import test_final_report as base
from tests.unit.test_final_report import SID, FakeReasoner, _context, _write

svc = base.svc  # the same fixture: evidence of one finding citing corpus://with

DRAFT = (
    "# Research Report Draft\n\n## How it works - 2026-01-01 00:00:00 UTC\n\n"
    + "The with statement calls enter and exit ([With](corpus://with)). " * 20
    + "\n\n## Pitfalls - 2026-01-01 00:01:00 UTC\n\nExceptions still call exit [1].\n"
)


def _draft(svc, text: str = DRAFT) -> None:
    svc.memory.write(SID, memory_files.DRAFT, text, "text/markdown")


def test_when_the_writer_fails_for_good_the_report_is_the_draft_with_a_note(svc):
    _draft(svc)
    svc.__dict__["reasoner"] = FakeReasoner(good_on=set(), fail=PermanentError)
    out = generate_final_report(svc, ReportIn(context=_context()))
    markdown = svc.memory.read_text(SID, REPORT_MD)
    assert out.basis == "draft_fallback" and out.failure  # the status learns why
    assert "The with statement calls enter and exit [1]." in markdown  # link -> [1]
    assert "## How it works" in markdown and "## Pitfalls" in markdown
    assert "Exceptions still call exit." in markdown  # a bare [1] is in no known numbering
    assert "this is the research draft" in markdown  # the note says so
    assert "corpus://with" in markdown.split("## Sources", 1)[1]


def test_a_short_draft_is_not_the_report_when_the_writer_fails(svc):
    _draft(svc, "# Research Report Draft\n\ntoo short")
    svc.__dict__["reasoner"] = FakeReasoner(good_on=set(), fail=PermanentError)
    assert generate_final_report(svc, ReportIn(context=_context())).basis == "minimal"


def test_the_writer_reads_the_draft_beside_main_md_key_insights(svc):
    _draft(svc)
    main = f"# Research Session - Main Index\n\n{memory_files.INSIGHTS_HEADING}\n\n- Exit runs.\n"
    svc.memory.write(SID, memory_files.MAIN, main, "text/markdown")
    seen = []
    fake = FakeReasoner(good_on={"draft"})
    original = fake.write_report
    fake.write_report = lambda material: seen.append(material) or original(material)
    _write(svc, fake)
    assert seen[0].primary_kind == "draft" and seen[0].insights == ["Exit runs."]


def test_the_quality_score_is_in_markdown_and_json_and_the_metrics_are_logged(svc, caplog):
    caplog.set_level(logging.INFO)
    critique = Critique(verdict="WARN", issues=["S2 is thin"])
    _, report = _write(svc, FakeReasoner(good_on={"findings"}), round=1, critique=critique)
    markdown = svc.memory.read_text(SID, REPORT_MD)
    assert report.quality_score is not None and 1 <= report.quality_score < 10
    assert f"*Research Quality Score: {report.quality_score}/10*" in markdown
    saved = json.loads(svc.memory.read(SID, "report.json"))
    assert saved["quality_score"] == report.quality_score
    logged = caplog.text
    assert "Read draft report" in logged
    for metric in ("draft_length=", "findings_count=1", "total_length=", "sections=3"):
        assert metric in logged


def test_a_too_short_report_is_logged_as_critical_scored_low_and_told_to_the_status(svc, caplog):
    svc.__dict__["reasoner"] = FakeReasoner(good_on=set())  # thin: every section "Short."
    out = generate_final_report(svc, ReportIn(context=_context()))
    report = json.loads(svc.memory.read(SID, "report.json"))
    assert "CRITICAL: final report is too short" in caplog.text
    assert report["quality_score"] <= 5
    assert out.too_short and out.too_short.startswith("the report is too short: ")


def test_a_long_enough_report_tells_the_status_nothing_about_length(svc):
    svc.memory.write(SID, memory_files.DRAFT, DRAFT, "text/markdown")
    long_ = FakeReasoner(good_on={"draft"})
    long_.write_report = _distinct_sections(long_.write_report)
    svc.__dict__["reasoner"] = long_
    out = generate_final_report(svc, ReportIn(context=_context()))
    assert out.basis == "draft" and out.too_short is None


def _distinct_sections(write):
    """The fake's sections repeat one sentence (deduplicated away): make them distinct."""

    def written(material):
        report = write(material)
        for i, section in enumerate(report.sections):
            section.content = " ".join(
                f"Sentence {i}.{j} about the with statement [1]." for j in range(20)
            )
        return report

    return written


def test_pages_read_but_never_cited_are_listed_as_also_consulted(svc):
    for url, title in (("corpus://with", "With"), ("https://docs.example/ctx", "Contexts")):
        page = Page(url=url, title=title, text="Text of the page.")
        svc.memory.write(SID, page_name(url), page.model_dump_json(), "application/json")
    _, report = _write(svc, FakeReasoner(good_on={"findings"}, cite="[1]"))
    assert [s.url for s in report.sources] == ["corpus://with"]
    assert [s.url for s in report.also_consulted] == ["https://docs.example/ctx"]
    markdown = svc.memory.read_text(SID, REPORT_MD)
    assert "### Also consulted\n\n- [Contexts](https://docs.example/ctx)" in markdown
