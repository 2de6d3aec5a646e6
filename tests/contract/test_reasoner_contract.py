"""Every Reasoner keeps the same promises: valid models, citations only to what it was
given, the user's language, and (offline) the same output for the same input."""

from __future__ import annotations

import re

from shared.core.completeness_models import COVERED_SCORE, CompletenessReview
from shared.core.report_models import Critique, FinalReport, SynthesizedAnswer
from shared.core.research_models import (
    AgentAction,
    AgentProfile,
    AgentState,
    ClarificationRequest,
    Finding,
    Observation,
    QueryAnalysis,
    ResearchPlan,
    SupervisorReview,
    Todo,
)
from shared.core.session_models import ChatMessage
from shared.core.source_models import PageSummary
from tests.contract.conftest import (
    DEFAULT_QUESTION,
    FIXTURE_URLS,
    fixture_context,
    fixture_findings,
    fixture_material,
    fixture_pages,
    fixture_summaries,
    shared_corpus,
)

CITATION = re.compile(r"\[(\d+)\]")
CYRILLIC = re.compile(r"[\u0400-\u04FF]")


def _cited(text: str) -> set[int]:
    return {int(n) for n in CITATION.findall(text)}


def _report_text(report: FinalReport) -> str:
    return "\n".join(
        [report.executive_summary, *(s.content for s in report.sections), report.conclusion]
    )


def _sentences(text: str) -> list[str]:
    plain = CITATION.sub("", text)
    parts = re.split(r"(?<=[.!?])\s+|\n+", plain)
    return [" ".join(p.lower().split()).rstrip(".!? ") for p in parts if len(p.split()) >= 4]


def _state(step: int = 0, max_steps: int = 5, observations=()) -> AgentState:
    todo = Todo(
        id="todo-1",
        agent_id=1,
        topic_id=1,
        topic="How the with statement works",
        queries=["with statement context manager", "__enter__ __exit__"],
    )
    profile = AgentProfile(agent_id=1, name="Technical expert", specialization="mechanisms")
    return AgentState(
        context=fixture_context(),
        profile=profile,
        todo=todo,
        step=step,
        max_steps=max_steps,
        observations=list(observations),
    )


# -- chat and search --------------------------------------------------------------


def test_answer_is_a_valid_answer_in_chat_mode(reasoner):
    history = [ChatMessage(role="user", content="Tell me about Python statements")]
    answer = reasoner.answer(DEFAULT_QUESTION, history, "en")
    assert isinstance(answer, SynthesizedAnswer)
    assert answer.answer.strip()
    assert answer.sources == []  # chat mode has no web sources to cite


def test_query_helpers_return_usable_queries(reasoner):
    rewritten = reasoner.rewrite_query(
        "and its exit method?", [ChatMessage(role="user", content=DEFAULT_QUESTION)], "en"
    )
    assert isinstance(rewritten, str) and rewritten.strip()
    queries = reasoner.search_queries(DEFAULT_QUESTION, 3, "en")
    assert 1 <= len(queries) <= 3 and all(q.strip() for q in queries)
    assert len({q.lower() for q in queries}) == len(queries)
    follow = reasoner.follow_up_queries(DEFAULT_QUESTION, fixture_summaries(), 2, "en")
    assert len(follow) <= 2 and all(q.strip() for q in follow)


def test_summarize_page_keeps_the_page_url(reasoner):
    page = fixture_pages()[0]
    summary = reasoner.summarize_page(DEFAULT_QUESTION, page, "en")
    assert isinstance(summary, PageSummary)
    assert summary.url == page.url and summary.summary.strip()


def test_synthesize_cites_only_the_given_summaries(reasoner):
    summaries = fixture_summaries()
    answer = reasoner.synthesize(DEFAULT_QUESTION, summaries, "en", 60, 200)
    assert isinstance(answer, SynthesizedAnswer)
    cited = _cited(answer.answer)
    assert cited, "an answer built from sources cites them"
    assert cited <= set(range(1, len(summaries) + 1))
    for source in answer.sources:
        assert source.url == summaries[source.n - 1].url
    assert {s.n for s in answer.sources} >= cited


# -- deep research -------------------------------------------------------------------


def test_clarify_analyze_plan_profiles_are_valid(reasoner):
    context = fixture_context()
    assert isinstance(reasoner.clarify(context), ClarificationRequest)
    analysis = reasoner.analyze(context)
    assert isinstance(analysis, QueryAnalysis)
    plan = reasoner.plan(context, analysis, 3)
    assert isinstance(plan, ResearchPlan)
    assert 1 <= len(plan.topics) <= 3
    assert len({t.id for t in plan.topics}) == len(plan.topics)
    assert all(t.queries for t in plan.topics)
    profiles = reasoner.agent_profiles(context, plan, 3)
    assert [p.agent_id for p in profiles] == [1, 2, 3]


def test_clarifying_questions_come_in_the_users_language(reasoner):
    short = fixture_context("ru").model_copy(update={"query": "Менеджеры контекста?"})
    request = reasoner.clarify(short)
    assert request.needed and request.questions
    assert all(CYRILLIC.search(q) for q in request.questions)


def test_agent_step_stays_within_budget_and_scrapes_only_seen_urls(reasoner):
    last = reasoner.agent_step(_state(step=4, max_steps=5))
    assert isinstance(last, AgentAction) and last.tool == "done"
    results = shared_corpus().search("with statement context manager", 3)
    seen = _state(
        step=1,
        observations=[Observation(tool="web_search", argument="with statement", results=results)],
    )
    action = reasoner.agent_step(seen)
    assert isinstance(action, AgentAction)
    if action.tool == "scrape_url":
        assert action.argument in {r.url for r in results}


def test_write_finding_cites_only_the_pages_read(reasoner):
    pages = fixture_pages()[:2]
    finding = reasoner.write_finding(_state(step=4), pages)
    assert isinstance(finding, Finding)
    allowed = {p.url for p in pages}
    assert finding.key_findings
    assert all(k.source_urls and set(k.source_urls) <= allowed for k in finding.key_findings)
    assert {s.url for s in finding.sources} <= allowed
    empty = reasoner.write_finding(_state(step=4), [])
    assert empty.key_findings == [] and empty.sources == []


def test_supervise_only_schedules_planned_topics(reasoner):
    context = fixture_context()
    plan = reasoner.plan(context, reasoner.analyze(context), 4)
    findings = fixture_findings()
    review = reasoner.supervise(context, plan, findings[0], findings, [], 2)
    assert isinstance(review, SupervisorReview)
    assert {t.topic_id for t in review.new_todos} <= {t.id for t in plan.topics}


def test_write_report_cites_only_material_sources_and_repeats_nothing(reasoner):
    material = fixture_material()
    report = reasoner.write_report(material)
    assert isinstance(report, FinalReport)
    assert len(report.sections) >= 3
    known = {s.n: s.url for s in material.sources}
    cited = _cited(_report_text(report))
    assert cited and cited <= set(known)
    assert all(known.get(s.n) == s.url for s in report.sources)
    sentences = _sentences(_report_text(report))
    assert len(sentences) == len(set(sentences))
    assert isinstance(reasoner.critique(report, material), Critique)


def test_russian_context_gets_russian_headings(reasoner):
    report = reasoner.write_report(fixture_material("ru"))
    assert report.language == "ru"
    assert all(CYRILLIC.search(s.heading) for s in report.sections)


def test_thin_material_still_gives_three_sections(reasoner):
    material = fixture_material("ru").model_copy(update={"findings": fixture_findings("ru")[:1]})
    report = reasoner.write_report(material)
    assert len(report.sections) >= 3
    assert all(CYRILLIC.search(s.heading) for s in report.sections)
    assert _cited(_report_text(report)) <= {s.n for s in material.sources}


def test_follow_up_questions_are_questions(reasoner):
    questions = reasoner.follow_up_questions(DEFAULT_QUESTION, fixture_pages()[0].text, "en")
    assert 1 <= len(questions) <= 5 and all(q.strip() for q in questions)


# -- offline only: determinism and corpus choices are its promises, not the LLM's -------


def test_offline_reasoner_is_deterministic(offline_reasoner):
    reasoner = offline_reasoner
    context = fixture_context()
    calls = [
        lambda: reasoner.synthesize(DEFAULT_QUESTION, fixture_summaries(), "en", 60, 200),
        lambda: reasoner.plan(context, reasoner.analyze(context), 5),
        lambda: reasoner.write_finding(_state(step=4), fixture_pages()),
        lambda: reasoner.write_report(fixture_material()),
        lambda: reasoner.answer(DEFAULT_QUESTION, [], "en"),
    ]
    for call in calls:
        assert call().model_dump_json() == call().model_dump_json()


def test_offline_report_cites_the_obvious_documents(offline_reasoner):
    reasoner = offline_reasoner
    report = reasoner.write_report(fixture_material())
    assert {s.url for s in report.sources} >= set(FIXTURE_URLS[:2])


def test_completeness_judges_each_topic_on_quotes_it_was_given(reasoner):
    summaries = fixture_summaries()
    said = " ".join(" ".join([s.title, s.summary, *s.relevant_sentences]) for s in summaries)
    read = " ".join(said.split()).lower()
    review = reasoner.evaluate_completeness(DEFAULT_QUESTION, [], summaries, "en")

    assert isinstance(review, CompletenessReview)
    assert 1 <= len(review.topics) <= 6
    for topic in review.topics:
        assert topic.topic.strip() and 0.0 <= topic.score <= 1.0
        assert not topic.evidence or " ".join(topic.evidence.split()).lower() in read
        if topic.covered:  # covered means proven: a quote and a score at the threshold
            assert topic.evidence and topic.score >= COVERED_SCORE and not topic.gaps
        else:
            assert topic.gaps and topic.gap_query.strip()
    assert set(review.content.missing) <= set(review.content.needs)

    titles = [t.topic for t in review.topics]
    again = reasoner.evaluate_completeness(DEFAULT_QUESTION, titles, summaries, "en")
    assert [t.topic for t in again.topics] == titles  # later rounds judge the same topics

    nothing = reasoner.evaluate_completeness(DEFAULT_QUESTION, titles, [], "en")
    assert not any(t.covered for t in nothing.topics)
