"""The offline report says what it rests on: no open question on its own subject, and a
report that cites nothing says whether sources were read."""

from __future__ import annotations

from shared.adapters.reasoning.offline import OfflineReasoner
from shared.adapters.reasoning.offline_quotes import names_only_subject
from shared.adapters.reasoning.offline_report import cite, source_questions
from shared.adapters.reasoning.offline_text import named
from shared.core.research_models import Finding, ResearchContext
from shared.core.source_models import Source
from tests.contract.conftest import fixture_context, fixture_material, shared_corpus


def test_a_topic_that_names_only_the_question_subject_is_no_open_question():
    context = ResearchContext(
        session_id="s", query="How do context managers and the with statement work in Python?"
    )
    assert names_only_subject("Key concepts: the with statement", context)
    assert names_only_subject("topic 2 (Key concepts: context managers) was planned", context)
    assert not names_only_subject("Examples: compound statements", context)


def test_a_topic_that_names_a_cited_page_is_no_open_question():
    """The report answers "Examples: contextlib" when it quotes the contextlib page."""
    context = ResearchContext(
        session_id="s", query="How do context managers and the with statement work in Python?"
    )
    cited = ["contextlib — Utilities for with-statement contexts", "Compound statements"]
    assert names_only_subject("Examples: contextlib", context, cited)
    assert names_only_subject("topic 3 (Examples: compound statements) was planned", context, cited)
    assert not names_only_subject("Examples: contextlib", context)
    assert not names_only_subject("Examples: the exception hierarchy", context, cited)


def test_a_topic_the_planner_took_from_a_page_found_off_topic_is_no_open_question():
    """The list-or-tuple report listed "Key concepts: the dataclasses module" as open: the
    planner took it from that page, which was read and quoted nothing about the question."""
    material = fixture_material()
    off_topic = Source(
        n=len(material.sources) + 1,
        url="corpus://python-stdlib/dataclasses",
        title="The dataclasses module",
    )
    gaps = ["Key concepts: the dataclasses module", "Examples: the exception hierarchy"]
    update = {"gaps": gaps, "sources": [*material.sources, off_topic]}
    report = OfflineReasoner(shared_corpus()).write_report(material.model_copy(update=update))
    assert off_topic.url not in {s.url for s in report.sources}  # read, not cited
    open_questions = [s.content for s in report.sections if s.heading == "Open questions"]
    assert open_questions and "dataclasses" not in open_questions[0]
    assert "Examples: the exception hierarchy" in open_questions[0]  # no page read on it


def test_the_report_of_the_subject_does_not_list_the_subject_as_open():
    material = fixture_material()
    gap = f"Key concepts: {material.context.query.removeprefix('How do ').split(' work')[0]}"
    report = OfflineReasoner(shared_corpus()).write_report(
        material.model_copy(update={"gaps": [gap, "the deep search failed"]})
    )
    open_questions = [s.content for s in report.sections if s.heading == "Open questions"]
    assert report.sources and open_questions
    assert gap not in open_questions[0] and "the deep search failed" in open_questions[0]


def test_a_report_citing_nothing_says_the_sources_read_had_nothing_to_quote():
    material = fixture_material()
    unrelated = [
        Finding(agent_id=1, topic="Weather", topic_id=1, summary="Rain falls.", key_findings=[])
    ]
    report = OfflineReasoner(shared_corpus()).write_report(
        material.model_copy(update={"findings": unrelated})
    )
    assert not report.sources
    read = len(material.sources)
    assert report.executive_summary.startswith("Sources read for")
    assert f"”: {read}. None had a passage" in report.executive_summary
    assert "No source could be read" not in report.executive_summary
    empty = material.model_copy(update={"findings": unrelated, "sources": []})
    nothing = OfflineReasoner(shared_corpus()).write_report(empty)
    assert nothing.executive_summary.startswith("No source could be read")
    assert fixture_context().query in nothing.executive_summary


def test_a_question_about_a_cited_module_names_the_module_not_its_synopsis():
    """ "What does “atexit — allow programmer to define multiple exit functions to be executed
    upon normal program…” say about …?" was offered after a search answer."""
    titles = [
        "atexit — allow programmer to define multiple exit functions to be executed upon normal",
        "The with statement",
    ]
    questions = source_questions([], titles, "exit handlers", "en")
    assert questions[:2] == [
        "What does “atexit” say about exit handlers?",
        "What does “The with statement” say about exit handlers?",
    ]


def test_a_quote_ending_on_a_parenthesis_is_closed_after_its_citation():
    """An item of a docstring's list ends on "(defaults to …)" without a period, a syntax
    example on a quoted form; the quote after it read as the same sentence
    ("…WRAPPER_ASSIGNMENTS) [1] If obj is …")."""
    item = "assigned names the attributes copied (defaults to WRAPPER_ASSIGNMENTS)"
    assert cite(item, [1]) == f"{item} [1]."
    assert cite("It returns a pair (of items).", [2]) == "It returns a pair (of items) [2]."
    assert cite("A call (simulating partial.)", [3]) == "A call (simulating partial.) [3]"
    assert cite('Use "tuple(iterable)"', [1]) == 'Use "tuple(iterable)" [1].'
    assert cite('He said "done."', [1]) == 'He said "done." [1]'


def test_a_quote_from_a_module_page_names_the_member_it_describes():
    """ "Get an environment variable, return None if it doesn't exist" does not say which of
    the ``os`` page's hundreds of functions it is: the answer names ``os.getenv``."""
    offline = OfflineReasoner(shared_corpus())
    answer = offline.answer("How do I read an environment variable?", [], "en").answer
    assert "`os.getenv`: Get an environment variable, return None if it doesn't exist" in answer

    def member(url: str, sentence: str) -> str | None:
        return "atexit.register" if url == "corpus://python-stdlib/atexit" else None

    quote = "Register a function to be executed upon normal program termination."
    assert named(quote, ["corpus://x", "corpus://python-stdlib/atexit"], member) == (
        f"`atexit.register`: {quote}"
    )
    assert named(quote, ["corpus://x"], member) == quote  # another page: as it is
    itself = "Call register() once per exit function."
    assert named(itself, ["corpus://python-stdlib/atexit"], member) == itself
    dotted = "Use atexit.register to add one."
    assert named(dotted, ["corpus://python-stdlib/atexit"], member) == dotted
    prose = "Functions register themselves here."  # the word, not the function's name
    assert named(prose, ["corpus://python-stdlib/atexit"], member).startswith("`atexit.register`")
