"""The evaluation harness's pure parts: cited statements, the quote check, the task files."""

from __future__ import annotations

import json
from pathlib import Path

from bench.eval.statements import cited_statements, quoted_in
from bench.eval.tasks import deep_research_bench, shipped_tasks
from shared.core.report_models import FinalReport, ReportSection
from shared.core.source_models import Source

PAGE = 'Exception handlers are specified with the "try" … "except" statement. The rest.'


def report(content: str) -> FinalReport:
    sections = [ReportSection(heading=h, content=content if h == "A" else "") for h in "ABC"]
    sources = [Source(n=1, url="corpus://a"), Source(n=2, url="corpus://b")]
    return FinalReport(
        title="t", executive_summary="", sections=sections, conclusion="", sources=sources
    )


def test_each_citing_sentence_is_a_statement_with_the_sources_it_cites() -> None:
    text = "Threads share the GIL [1]. Nothing cited here. Both say so [1, 2]. Unknown [7]."
    found = cited_statements(report(text))
    assert [(s.text, s.urls) for s in found] == [
        ("Threads share the GIL .", ("corpus://a",)),
        ("Both say so .", ("corpus://a", "corpus://b")),
    ]


def test_a_quote_is_found_word_for_word_whatever_its_spacing_and_markup() -> None:
    assert quoted_in('Exception handlers are specified with the "try"… "except" statement .', PAGE)
    assert quoted_in('**Exception handlers** are specified with the "try" … "except"', PAGE)
    assert not quoted_in("Exception handlers are specified with the try statement.", PAGE)
    assert not quoted_in("", PAGE)


def test_a_quote_opened_with_the_member_it_describes_is_checked_without_the_label() -> None:
    """The offline writer opens a quote from a library page with what it describes
    ("`os.getenv`: …"): the quote is checked word for word, the name apart."""
    (found,) = cited_statements(report("`os.getenv`: Get an environment variable [1]."))
    assert (found.text, found.member) == ("Get an environment variable .", "os.getenv")
    page = "os.getenv(key, default=None)\n\nGet an environment variable, or None."
    assert quoted_in("Get an environment variable", page) and quoted_in(found.member, page)


def test_deep_research_bench_tasks_are_read_with_their_reference_reports(tmp_path: Path) -> None:
    queries = tmp_path / "query.jsonl"
    references = tmp_path / "reference.jsonl"
    rows = [
        {"id": 1, "topic": "Finance", "language": "en", "prompt": "Assess X."},
        {"id": 2, "topic": "Science", "language": "zh", "prompt": "评估 Y。"},
    ]
    queries.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    references.write_text(json.dumps({"id": 2, "prompt": "评估 Y。", "article": "参考"}) + "\n")

    tasks = deep_research_bench(queries, references)

    assert [(t.id, t.language, t.reference) for t in tasks] == [
        ("1", "en", None),
        ("2", "zh", "参考"),
    ]
    assert tasks[1].prompt == "评估 Y。"


def test_the_shipped_tasks_have_ids_prompts_and_one_reference() -> None:
    tasks = shipped_tasks()
    assert len(tasks) == 5 and len({t.id for t in tasks}) == 5
    assert sum(t.reference is not None for t in tasks) == 1
