"""A report no read page is about quotes the page that comes nearest, and says so
(``offline_near``), instead of citing nothing."""

from __future__ import annotations

from shared.adapters.reasoning.offline_near import is_near
from shared.adapters.reasoning.offline_report import write_report
from shared.core.report_models import ReportMaterial
from shared.core.research_models import Finding, KeyFinding, ResearchContext
from shared.core.source_models import Source

IDF = {"flatten": 2.0, "list": 0.6, "nest": 1.5, "chain": 1.8}
QUESTION = "How can I flatten a list of lists?"
NEAR = "corpus://library/itertools"
PASSING = "corpus://reference/lists"


def _report(said: dict[str, list[str]], language: str = "en", question: str = QUESTION):
    """The report over one finding quoting ``said`` (URL -> quotes), each page read once
    (its sources numbered in that order); no corpus text to judge pages by."""
    material = ReportMaterial(
        context=ResearchContext(session_id="s", query=question, language=language),
        findings=[
            Finding(
                agent_id=1,
                topic="How it works: lists",
                topic_id=1,
                summary="s",
                key_findings=[
                    KeyFinding(text=t, source_urls=[u]) for u, ts in said.items() for t in ts
                ],
            )
        ],
        sources=[Source(n=n, url=u, title=u.rsplit("/", 1)[1]) for n, u in enumerate(said, 1)],
    )
    return write_report(material, "offline", lambda *_: [], IDF)


def test_a_report_no_page_is_about_quotes_the_nearest_page_flagged():
    # one passage a page is not enough to make it about the question (two are needed)
    report = _report(
        {
            PASSING: ["A list can hold other lists."],
            NEAR: ["Chain the inner iterables to flatten a nested list."],
        }
    )
    assert [s.url for s in report.sources] == [NEAR]  # the page carrying most of the question
    assert report.confidence_level == "low"
    assert is_near(report.executive_summary)
    assert "itertools" in report.executive_summary  # the reader is told which page it is
    text = " ".join([report.executive_summary, *(s.content for s in report.sections)])
    assert "flatten a nested list [2]" in text
    # the topics stay open: the nearest page does not answer them
    assert "How it works: lists" in text


def test_one_strong_passage_on_the_page_read_first_is_nearer_than_weaker_ones_found_later():
    question = "How can I flatten a nested list?"  # flatten 2.0, nest 1.5, list 0.6
    first = "corpus://reference/expressions"
    strong = "Nested lists flatten into one list with a comprehension."  # all of it
    weak = [  # "nested" alone: 0.43 each, more of the question together than ``strong``
        "The inner iterables of a nested structure.",
        "Nested iterables can be consumed lazily.",
        "Each nested iterable is consumed once.",
    ]
    report = _report({first: [strong], NEAR: weak}, question=question)
    assert [s.url for s in report.sources] == [first]
    assert is_near(report.executive_summary)
    # two pages with a strong passage: the one read first (the searches rank it higher),
    # though the other's passages carry more together
    second = "Nested lists are flattened by chaining their items."
    report = _report({NEAR: [second], first: [strong, weak[0]]}, question=question)
    assert [s.url for s in report.sources] == [NEAR]
    # no strong passage anywhere: the page whose passages carry the most, wherever read
    report = _report({first: weak[:1], NEAR: weak[1:]}, question=question)
    assert [s.url for s in report.sources] == [NEAR]


def test_a_word_in_common_is_not_near_enough_to_quote():
    # "list" carries a fifth of the question: below the gate's floor, nothing is quoted
    report = _report({PASSING: ["A list can hold other lists."]})
    assert not report.sources
    assert report.executive_summary.startswith("Sources read for")  # not "1 sources were read"
    assert not is_near(report.executive_summary)


def test_the_flag_is_in_the_reports_language():
    said = {NEAR: ["Chain the inner iterables to flatten a nested list."]}
    report = _report(said, "de")
    assert is_near(report.executive_summary, "de")
    assert not is_near(report.executive_summary, "en")
    assert report.executive_summary.startswith("Die Quellen kommen der Frage nur nahe")


def test_a_report_nothing_answers_lists_the_question_as_open_not_the_planners_guesses():
    # the planner's other topics came from pages found off topic ("calls"): not the reader's
    material = ReportMaterial(
        context=ResearchContext(session_id="s", query=QUESTION, language="en"),
        findings=[
            Finding(agent_id=i, topic=topic, topic_id=i, summary="s", key_findings=[])
            for i, topic in enumerate(
                ["How it works: flatten a list of lists", "Examples: calls"], start=1
            )
        ],
        sources=[Source(n=1, url=PASSING, title="lists")],
    )
    report = write_report(material, "offline", lambda *_: [], IDF)
    assert not report.sources
    (open_questions,) = [s.content for s in report.sections if s.heading == "Open questions"]
    assert "How it works: flatten a list of lists" in open_questions
    assert "calls" not in open_questions and "calls" not in report.conclusion
