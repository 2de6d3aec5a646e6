"""Everyday questions over the default corpus (issue 32), through devhost's HTTP API: a
module question cites the module's documentation, a comparison is researched per side."""

from __future__ import annotations

import json

from shared.core.report_models import FinalReport
from tests.e2e.test_deep_research_memory import folder, run_research

NO_CLARIFY = {"enable_clarifying_questions": False}


def test_the_decorators_question_cites_the_function_definition_and_functools_pages(
    start_devhost,
):
    host = start_devhost()
    question = "How do Python decorators work, and when should I use functools.wraps?"
    view = run_research(host, question, NO_CLARIFY)
    assert view["status"] == "completed", view
    root = folder(host, view["session_id"])
    report = FinalReport.model_validate_json((root / "report.json").read_text())
    cited = {s.url for s in report.sources}
    assert {"corpus://python-reference/function", "corpus://python-stdlib/functools"} <= cited
    assert "No source could be read" not in report.executive_summary
    # the status counts what was read; the report cites a part of it, never more
    assert 0 < len(cited) <= view["progress"]["source_count"]
    assert view["result"]["report"]["source_count"] == len(cited)


def test_a_comparison_leaves_an_item_per_finding_and_three_sections(start_devhost):
    host = start_devhost()
    view = run_research(host, "Compare Python lists and tuples: when should each be used?")
    assert view["status"] == "completed", view
    root = folder(host, view["session_id"])
    items = sorted((root / "items").glob("item_*.json"))
    assert len(items) >= 2
    assert all(json.loads(p.read_text())["key_findings"] for p in items)
    report = FinalReport.model_validate_json((root / "report.json").read_text())
    assert len(report.sections) >= 3
    assert "corpus://python-reference/typesseq" in {s.url for s in report.sources}
