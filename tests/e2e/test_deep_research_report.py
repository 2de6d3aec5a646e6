"""The deep research report through devhost (offline, local corpus): honest citations,
evidence that reaches the report, several sources, the user's language, reproducibility."""

from __future__ import annotations

import json
import re

import pytest

from bench.precision import labelled
from shared.adapters.report.citations import cited_numbers
from shared.core.report_models import FinalReport
from tests.e2e.test_deep_research_memory import QUESTION, folder, run_research

RUSSIAN = "Как работают менеджеры контекста и оператор with в Python?"
GERMAN_UNMATCHED = "Wie funktionieren Generatoren in Python?"
ON_TOPIC = {item.question: item.accepted for item in labelled("tune")}  # bench/labels.json


def report_files(host, session_id: str) -> tuple[FinalReport, dict, str]:
    root = folder(host, session_id)
    report = FinalReport.model_validate_json((root / "report.json").read_text())
    findings = json.loads((root / "findings.json").read_text())
    return report, findings, (root / "report.md").read_text()


def test_report_cites_only_evidence_and_many_sources(start_devhost):
    host = start_devhost()
    view = run_research(host, QUESTION)
    assert view["status"] == "completed", view
    report, findings, markdown = report_files(host, view["session_id"])
    root = folder(host, view["session_id"])

    evidence = {s["url"]: s["n"] for s in findings["sources"]}
    assert {s.url for s in report.sources} <= set(evidence)
    # The reader's numbering: 1..N with no gaps, in the order the text first cites them.
    assert [s.n for s in report.sources] == list(range(1, len(report.sources) + 1))
    # several sources, and only on-topic ones: quotes that share too little with the
    # question are left out, so fewer but relevant documents are cited (bench/precision.py)
    cited = {s.url.removeprefix("corpus://") for s in report.sources}
    assert len(cited) >= 4 and cited <= ON_TOPIC[QUESTION], cited
    assert all(s.tier is not None for s in report.sources)  # every source shows its tier
    text = "\n".join(
        [report.executive_summary, report.conclusion, *(s.content for s in report.sections)]
    )
    assert cited_numbers(text) == {s.n for s in report.sources}
    # in reading order (report.md): the conclusion comes after the sections
    read = "\n".join(
        [report.executive_summary, *(s.content for s in report.sections), report.conclusion]
    )
    first_seen = [int(n) for n in re.findall(r"\[(\d+)", read)]
    assert list(dict.fromkeys(first_seen)) == sorted(set(first_seen))
    assert "corpus://python-reference/with" in evidence  # the obviously relevant topics
    assert "corpus://python-reference/context-managers" in evidence

    # every finding's key findings and sources reached findings.json
    kept = {k["text"] for f in findings["findings"] for k in f["key_findings"]}
    for item in sorted((root / "items").glob("item_*.json")):
        finding = json.loads(item.read_text())
        assert {k["text"] for k in finding["key_findings"]} <= kept
        assert {s["url"] for s in finding["sources"]} <= set(evidence)
    deep = [f for f in findings["findings"] if f["topic"] == "Deep search"]
    assert deep and deep[0]["agent_id"] == 0  # the deep search answer is evidence too

    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text) if len(s.split()) >= 5]
    assert len(sentences) == len(set(sentences))
    assert len(report.sections) >= 3 and markdown.rstrip().endswith(
        f"**Confidence:** {report.confidence_level}\n\n"
        f"*Research Quality Score: {report.quality_score}/10*"
    )


def _normalized(host, session_id: str) -> str:
    raw = (folder(host, session_id) / "report.json").read_text()
    raw = raw.replace(session_id, "<session>")
    raw = re.sub(r'"seconds": [\d.e-]+', '"seconds": "<seconds>"', raw)  # each phase's duration
    return re.sub(r"\d{4}-\d\d-\d\d[T ][\d:.]+(?:Z|\+00:00| UTC)?", "<time>", raw)


def test_same_question_same_corpus_same_report(start_devhost):
    host = start_devhost()
    first = run_research(host, QUESTION)
    second = run_research(host, QUESTION)
    assert first["status"] == second["status"] == "completed"
    assert first["session_id"] != second["session_id"]
    assert _normalized(host, first["session_id"]) == _normalized(host, second["session_id"])


def test_a_russian_question_gets_a_russian_headed_report(start_devhost):
    host = start_devhost()
    view = run_research(host, RUSSIAN, {"enable_clarifying_questions": False})
    assert view["status"] == "completed", view
    report, _, markdown = report_files(host, view["session_id"])
    assert report.language == "ru"
    assert (
        "## Резюме" in markdown
        or "## Краткое содержание" in markdown
        or re.search(r"(?m)^## [А-Яа-яЁё]", markdown)
    )
    assert "## Executive Summary" not in markdown and "## Conclusion" not in markdown
    assert re.search(r"[А-Яа-яЁё]", report.title)
    assert "research report" not in report.title
    # the quotes are English, and the report says so in Russian; the words that carry over
    # ("with") found the with statement's pages (and contextlib's), so the report cites them
    cited = {s.url.rsplit("/", 1)[-1] for s in report.sources}
    assert cited and cited <= {"with", "context-managers", "compound", "contextlib"}, cited
    assert any("на языке корпуса" in line for line in report.limitations)


def test_a_question_of_which_no_word_carries_over_cites_nothing_and_says_why(start_devhost):
    """The corpus is English and the engine has no translation: "Generatoren" matches
    nothing. Its report used to cite the dict and global pages (whatever came up first);
    it says, in German, to name the construct in English, and quotes no nearest page."""
    host = start_devhost()
    view = run_research(host, GERMAN_UNMATCHED, {"enable_clarifying_questions": False})
    assert view["status"] == "completed", view
    report, _, markdown = report_files(host, view["session_id"])
    assert report.language == "de"
    assert report.sources == [], [s.url for s in report.sources]
    assert "englisch" in report.executive_summary and "„yield“" in report.executive_summary
    assert not cited_numbers(markdown)


HUB_QUESTIONS = [
    "How do for loops and while loops work in Python, including break and continue?",
    "How does Python decide which names are global, nonlocal or local in a function?",
    "How do generators and the yield expression work in Python?",
]


@pytest.mark.xfail(
    strict=True,
    reason="issue 32 open: a hub question such as generators still cites too few on-topic "
    "sources (the gate does not judge long pages that mention it about it); bench/precision.py",
)
def test_pages_that_only_mention_the_question_are_not_cited(start_devhost):
    """The debugger, identifiers and naming pages use these questions' words for other
    things ("list all breaks, including for each breakpoint"): at most one cited source in
    ten may be off the labelled list (bench/precision.py measures the whole labelled set)."""
    host = start_devhost()
    cited, off = 0, []
    for question in HUB_QUESTIONS:
        view = run_research(host, question, {"enable_clarifying_questions": False})
        assert view["status"] == "completed", view
        report, _, _ = report_files(host, view["session_id"])
        keys = [s.url.removeprefix("corpus://") for s in report.sources]
        assert len(keys) >= 3, (question, keys)  # relevant pages are still read and cited
        cited += len(keys)
        off += [k for k in keys if k not in ON_TOPIC[question]]
    assert len(off) * 10 <= cited, off
