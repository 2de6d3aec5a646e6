"""OfflineReasoner decisions: when it asks, how it plans, how agents move, when it stops."""

from __future__ import annotations

import pytest

from shared.adapters.reasoning import offline_quotes
from shared.adapters.reasoning.offline import OfflineReasoner
from shared.adapters.reasoning.offline_near import is_near
from shared.adapters.reasoning.templates import texts_for
from shared.core.report_models import ReportMaterial
from shared.core.research_models import (
    AgentProfile,
    AgentState,
    Finding,
    KeyFinding,
    Observation,
    ResearchContext,
    Todo,
)
from shared.core.session_models import ChatMessage
from shared.core.source_models import PageSummary, Source
from tests.contract.conftest import (
    DEFAULT_QUESTION,
    fixture_findings,
    fixture_material,
    fixture_summaries,
    shared_corpus,
)


@pytest.fixture
def offline() -> OfflineReasoner:
    return OfflineReasoner(shared_corpus())


def _context(query: str = DEFAULT_QUESTION, language: str = "en", **extra) -> ResearchContext:
    return ResearchContext(session_id="s1", query=query, language=language, **extra)


def test_chat_answer_quotes_the_with_statement_reference(offline):
    answer = offline.answer(DEFAULT_QUESTION, [], "en")
    assert "context manager" in answer.answer
    assert "The with statement" in answer.answer  # names the reference it quotes


def test_rewrite_query_resolves_a_pronoun_from_the_previous_question(offline):
    history = [
        ChatMessage(role="user", content="What does a context manager do?"),
        ChatMessage(role="assistant", content="It sets up a runtime context."),
    ]
    rewritten = offline.rewrite_query("How do I write one?", history, "en")
    assert "context manager" in rewritten
    assert offline.rewrite_query(DEFAULT_QUESTION, history, "en") == DEFAULT_QUESTION


def test_search_queries_start_with_the_question_and_vary(offline):
    queries = offline.search_queries(DEFAULT_QUESTION, 4, "en")
    assert queries[0] == DEFAULT_QUESTION and len(set(queries)) == 4


def test_synthesize_never_exceeds_max_words(offline):
    answer = offline.synthesize(DEFAULT_QUESTION, fixture_summaries(), "en", 30, 45)
    assert len(answer.answer.split()) <= 45
    assert answer.sources


def _pages(*pages: tuple[str, str]) -> list[PageSummary]:
    return [
        PageSummary(url=f"corpus://x/{i}", title=title, summary=text, relevant_sentences=[text])
        for i, (title, text) in enumerate(pages, start=1)
    ]


def test_a_search_answer_quotes_only_pages_about_the_question(offline):
    summaries = _pages(
        ("pdb — The Python Debugger", "Without argument, list all breaks, including for each."),
        ("The break statement", "The break statement terminates the nearest enclosing loop."),
        ("The for statement", "A break statement in a for loop skips the loop's else clause."),
    )
    question = "How do for loops work in Python, including break and continue?"
    answer = offline.synthesize(question, summaries, "en", 100, 200)
    assert [s.title for s in answer.sources] == ["The break statement", "The for statement"]
    assert "breakpoint" not in answer.answer and "list all breaks" not in answer.answer


def test_a_search_answer_with_nothing_about_the_question_says_so(offline):
    summaries = _pages(("pdb — The Python Debugger", "Set a breakpoint at a line number."))
    answer = offline.synthesize("How do generators work in Python?", summaries, "en", 5, 200)
    assert answer.answer == texts_for("en")["synth_off_topic"] and not answer.sources


def test_a_search_answer_in_another_language_says_its_quotes_are_english(offline):
    summaries = _pages(("The with statement", "The with statement calls __enter__ first."))
    answer = offline.synthesize("Как работает оператор with?", summaries, "ru", 5, 200)
    assert answer.answer.startswith("Источники написаны на английском")
    assert "(“with”)" in answer.answer and "__enter__" in answer.answer


@pytest.mark.parametrize(
    ("query", "language", "needed"),
    [
        ("Context managers?", "en", True),
        ("Менеджеры контекста?", "ru", True),
        (DEFAULT_QUESTION, "en", False),
    ],
)
def test_clarify_asks_only_about_short_questions(offline, query, language, needed):
    request = offline.clarify(_context(query, language))
    assert request.needed is needed
    assert len(request.questions) == (3 if needed else 0)


def test_clarify_does_not_ask_twice(offline):
    context = _context("Context managers?", clarification_answers=["the protocol"])
    assert offline.clarify(context).needed is False


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("What is a context manager?", "definition"),
        ("How do I write a context manager?", "how_to"),
        ("Compare lists vs tuples in Python", "comparison"),
        ("Why does Python have a with statement?", "why"),
        ("List the kinds of numeric literals", "list"),
        ("Что такое менеджер контекста?", "definition"),
    ],
)
def test_analyze_reads_the_question_shape(offline, query, kind):
    assert offline.analyze(_context(query)).query_type == kind


def test_comparison_gets_several_agents_and_a_comparison_topic(offline):
    context = _context("Compare lists vs tuples in Python")
    analysis = offline.analyze(context)
    assert 2 <= analysis.recommended_agents <= 4
    plan = offline.plan(context, analysis, 6)
    assert any("lists" in t.title and "tuples" in t.title for t in plan.topics)


def test_plan_respects_max_topics_and_uses_corpus_phrases(offline):
    context = _context()
    plan = offline.plan(context, offline.analyze(context), 3)
    assert len(plan.topics) == 3
    # each topic is anchored in a different corpus document about the question:
    # its focused query (the second) finds that document first, and they differ
    corpus = shared_corpus()
    tops = [corpus.search(t.queries[1], 1)[0].url for t in plan.topics]
    assert len(set(tops)) == 3
    relevant = {r.url for r in corpus.search(DEFAULT_QUESTION, 10)}
    assert set(tops) <= relevant


def test_plan_anchors_topics_only_in_documents_about_the_question(offline):
    context = _context("How do for loops and while loops work in Python, including break?")
    plan = offline.plan(context, offline.analyze(context), 6)
    corpus = shared_corpus()
    anchors = [corpus.search(t.queries[1], 1)[0].url.rsplit("/", 1)[-1] for t in plan.topics]
    # the debugger page lists "all breaks, including for each breakpoint": not about loops
    assert "debugger" not in anchors
    assert set(anchors) <= {"for", "while", "break", "continue", "compound"}


def test_plan_reads_the_pages_on_the_question_s_concepts_beyond_the_one_about_it(offline):
    context = _context("How do generators and the yield expression work in Python?")
    plan = offline.plan(context, offline.analyze(context), 6)
    corpus = shared_corpus()
    anchors = [corpus.search(t.queries[1], 1)[0].url.rsplit("/", 1)[-1] for t in plan.topics]
    # one page is about the question (its title names it); the type hierarchy's section on
    # generator functions is read too, under a topic of its own
    assert anchors[0] == "yield" and "types" in anchors[1:]


def _agent_state(**extra) -> AgentState:
    return AgentState(
        context=_context(),
        profile=AgentProfile(agent_id=1, name="Technical expert", specialization="x"),
        todo=Todo(
            id="t1",
            agent_id=1,
            topic_id=1,
            topic="How the with statement works",
            queries=["with statement __exit__", "context manager protocol"],
        ),
        **extra,
    )


def test_agent_searches_broad_then_narrow_then_reads_then_stops(offline):
    corpus = shared_corpus()
    state = _agent_state(max_steps=5)
    tools = []
    while True:
        action = offline.agent_step(state)
        tools.append(action.tool)
        if action.tool == "done":
            break
        if action.tool == "web_search":
            observation = Observation(
                tool="web_search",
                argument=action.argument,
                results=corpus.search(action.argument, 4),
            )
        else:
            state.fetched_urls.append(action.argument)
            observation = Observation(
                tool="scrape_url", argument=action.argument, page_urls=[action.argument]
            )
        state.observations.append(observation)
        state.step += 1
    assert tools == ["web_search", "web_search", "scrape_url", "scrape_url", "done"]
    assert len(set(state.fetched_urls)) == 2


def test_agent_reformulates_after_an_empty_search(offline):
    state = _agent_state(
        step=1,
        observations=[
            Observation(tool="web_search", argument="How the with statement works", results=[])
        ],
    )
    action = offline.agent_step(state)
    assert action.tool == "web_search" and action.argument == "with statement __exit__"


def test_finding_without_pages_says_nothing_was_found(offline):
    finding = offline.write_finding(_agent_state(), [])
    assert finding.confidence == "low" and not finding.key_findings
    assert finding.notes == [texts_for("en")["finding_none"]]


def test_supervisor_adds_todos_for_thin_topics_and_finishes_when_covered(offline):
    context = _context()
    plan = offline.plan(context, offline.analyze(context), 3)
    thin = Finding(
        agent_id=1,
        topic=plan.topics[0].title,
        topic_id=plan.topics[0].id,
        key_findings=[KeyFinding(text="One fact.", source_urls=["corpus://x/a"])],
    )
    review = offline.supervise(context, plan, thin, [thin], [], calls_left=3)
    assert review.decision == "continue"
    assert {t.topic_id for t in review.new_todos} == {t.id for t in plan.topics}
    assert offline.supervise(context, plan, thin, [thin], [], calls_left=0).decision == "finish"
    rich = [
        Finding(
            agent_id=1,
            topic=t.title,
            topic_id=t.id,
            key_findings=[
                KeyFinding(text=f"Fact {k} about {t.title}.", source_urls=["corpus://x/a"])
                for k in range(3)
            ],
        )
        for t in plan.topics
    ]
    done = offline.supervise(context, plan, rich[0], rich, [], calls_left=3)
    assert done.decision == "finish" and not done.new_todos
    assert "(corpus://x/a)" in done.draft_section  # cited with markdown links


def test_report_limitations_name_the_engine_and_the_unanswered_clarification(offline):
    report = offline.write_report(fixture_material(clarification_timed_out=True))
    assert report.limitations[0].startswith("Written offline by the extractive engine")
    assert "without a language model" in report.limitations[0]
    assert texts_for("en")["clarification_timed_out"] in report.limitations


def test_critique_rejects_citations_outside_the_material(offline):
    material = fixture_material()
    report = offline.write_report(material)
    assert offline.critique(report, material).verdict in ("PASS", "WARN")
    broken = report.model_copy(update={"conclusion": report.conclusion + " Invented [9]."})
    assert offline.critique(broken, material).verdict == "REJECT"


def test_report_sections_follow_topics_in_order(offline):
    report = offline.write_report(fixture_material())
    headings = [s.heading for s in report.sections]
    assert headings[:3] == [f.topic for f in fixture_findings()]


def test_a_question_sharing_no_words_with_the_pages_still_quotes_them(offline):
    pages = [shared_corpus().fetch("corpus://python-reference/with")]
    state = _agent_state().model_copy(
        update={
            "context": _context("Как работают менеджеры контекста?", "ru"),
            "todo": Todo(id="t1", agent_id=1, topic_id=1, topic="Протокол менеджера контекста"),
        }
    )
    finding = offline.write_finding(state, pages)
    assert finding.key_findings and finding.key_findings[0].source_urls == [pages[0].url]


def _material_with(
    topics: dict[str, list[tuple[str, str]]], title: str = "With statement, part {n}", **extra
) -> ReportMaterial:
    """Report material whose findings quote the given (sentence, url) pairs per topic, from
    sources whose titles name the question's subject unless ``title`` says otherwise."""
    urls = sorted({url for items in topics.values() for _, url in items})
    findings = [
        Finding(
            agent_id=i,
            topic=topic,
            topic_id=i,
            todo_id=f"t{i}",
            summary=items[0][0],
            key_findings=[KeyFinding(text=s, source_urls=[u]) for s, u in items],
        )
        for i, (topic, items) in enumerate(topics.items(), start=1)
    ]
    return ReportMaterial(
        context=ResearchContext(
            session_id="s", query="How does the with statement call a context manager?"
        ),
        findings=findings,
        sources=[Source(n=n, url=u, title=title.format(n=n)) for n, u in enumerate(urls, 1)],
        **extra,
    )


WITH = [
    ("The with statement calls the context manager's enter method first.", "corpus://x/a"),
    ("A context manager's exit method runs even when the block raises.", "corpus://x/b"),
    ("The with statement stores the manager's exit method before the block.", "corpus://x/c"),
]
NESTED = [
    ("Several context managers in one with statement behave like nested ones.", "corpus://x/a"),
    ("An async with statement awaits the context manager's enter method.", "corpus://x/b"),
    ("The context manager may suppress the exception by returning true.", "corpus://x/c"),
]


def test_confidence_comes_from_independent_sources_per_section(offline):
    three = {"How it works: the with statement": WITH, "Key concepts: nesting": NESTED}
    assert offline.write_report(_material_with(three)).confidence_level == "high"
    one_source = {
        "How it works: the with statement": WITH,
        "Examples: enter methods": [
            ("A context manager's enter method may return another object.", "corpus://x/a")
        ],
    }
    report = offline.write_report(_material_with(one_source))
    assert report.confidence_level == "medium"  # a section resting on one source is not high
    assert "strongest on: The with statement (3 sources)." in report.conclusion
    assert report.conclusion.endswith("Cited sources: 3.")
    # the label alone states it: the pipeline lowers it for a thin report, and the demo's
    # conclusion said "medium" above its "Confidence: low"
    assert "confidence" not in report.conclusion.lower()
    assert "Enter methods" not in report.conclusion  # one source is not "strong"
    single = offline.write_report(_material_with({"How it works: the with statement": WITH[:1]}))
    assert "Cited sources: 1." in single.conclusion  # never "1 cited sources"
    failed = offline.write_report(_material_with(three, gaps=["the critic failed"]))
    assert failed.confidence_level == "medium"  # a failed phase caps confidence


def test_headings_name_the_subject_not_the_plan_template(offline):
    report = offline.write_report(_material_with({"Pitfalls and edge cases: exit methods": WITH}))
    assert report.sections[0].heading == "Exit methods"


def test_off_topic_quotes_are_not_cited(offline):
    off = ("Every object has an identity, a type and a value.", "corpus://x/objects")
    report = offline.write_report(_material_with({"Key concepts: with": [*WITH, off]}))
    assert "identity" not in " ".join(s.content for s in report.sections)
    assert all(s.url != "corpus://x/objects" for s in report.sources)


def test_a_source_is_cited_only_when_its_title_or_two_quotes_are_about_the_question(offline):
    once = ("The debugger's with command runs a statement in a context manager.", "corpus://x/d")
    topics = {"Key concepts: with": [*WITH, once]}
    untitled = offline.write_report(_material_with(topics, title="Doc {n}"))
    # one quote per page is a coincidence of words: no page is about the question, so the
    # report only quotes the nearest one, and says so (``offline_near``)
    assert is_near(untitled.executive_summary) and untitled.confidence_level == "low"
    assert len(untitled.sources) == 1
    twice = ("A context manager's exit method sees the with statement's exception.", "corpus://x/d")
    cited = offline.write_report(_material_with({"Key concepts: with": [once, twice]}, "Doc {n}"))
    assert [s.url for s in cited.sources] == ["corpus://x/d"]
    titled = offline.write_report(_material_with(topics))
    assert "corpus://x/d" in [s.url for s in titled.sources]


def test_follow_up_questions_are_about_topics_and_sources(offline):
    material = _material_with({"Key concepts: with": WITH})
    material.primary = (
        "- **Key concepts: with** (Priority: high, Estimated sources: 5)\n"
        "- **Examples: nesting**: why (Priority: high, Estimated sources: 10)\n"
    )
    questions = offline.write_report(material).follow_up_questions
    assert questions[0] == "What do other sources say about “Nesting”?"
    assert "What does “With statement, part 1” say about the with statement?" in questions


def test_a_question_in_another_language_is_searched_for_the_words_that_carry_over(offline):
    answer = offline.answer("Как работает оператор with в Python?", [], "ru")
    assert answer.answer.startswith("Локальный справочник написан на английском")
    assert "(“with”)" in answer.answer  # "Python" names every document: not a search term
    assert "The with statement" in answer.answer  # quotes from the with statement's page


def test_a_question_with_nothing_that_carries_over_says_so_in_its_language(offline):
    answer = offline.answer("Как работают менеджеры контекста?", [], "ru")
    assert answer.answer == texts_for("ru")["answer_untranslatable"]


GERMAN_UNMATCHED = "Wie funktionieren Generatoren in Python?"  # "in" is German here


def test_a_german_question_of_which_nothing_carries_over_gets_no_english_quotes(offline):
    """Chat used to quote the membership test page for its "in", search the dict page."""
    untranslatable = texts_for("de")["answer_untranslatable"]
    assert offline.answer(GERMAN_UNMATCHED, [], "de").answer == untranslatable
    answer = offline.synthesize(GERMAN_UNMATCHED, fixture_summaries(), "de", 30, 120)
    assert answer.answer == untranslatable and answer.sources == []
    # follow-up questions are not made of the engine's own words ("und die frage")
    follow_ups = offline.follow_up_questions(GERMAN_UNMATCHED, answer.answer, "de")
    assert follow_ups and all("Generatoren" in q for q in follow_ups), follow_ups


def test_the_monitor_policy_contrasts_official_and_community_sources(offline):
    community = [
        (
            "A forum post says the with statement also calls the manager's exit on return.",
            "https://forum.example/t/1",
        ),
    ]
    material = _material_with({"How it works: the with statement": [*WITH, *community]})
    material.context.source_policy = "monitor"
    tiers = {"https://forum.example/t/1": 5}
    material.sources = [
        s.model_copy(update={"tier": tiers.get(s.url, 1)}) for s in material.sources
    ]

    report = offline.write_report(material)

    contrast = next(
        s for s in report.sections if s.heading == "Official and community sources compared"
    )
    official, said = contrast.content.split("\n\n")
    official_numbers = {s.n for s in report.sources if s.tier == 1}
    assert official.startswith("Official sources (tier 1) say:")
    assert any(f"[{n}]" in official for n in official_numbers), official
    forum = next(s.n for s in report.sources if s.url == "https://forum.example/t/1")
    assert said.startswith("Community sources (tier 5) say:") and f"[{forum}]" in said
    assert offline.critique(report, material).verdict != "REJECT"

    without = report.model_copy(
        update={"sections": [s for s in report.sections if s is not contrast]}
    )
    issues = offline.critique(without, material).issues
    assert "monitor source policy: no section contrasts official and community sources" in issues


def test_topics_are_anchored_in_documents_whose_title_names_the_question(offline):
    """ "for", "while", "break", "continue" are what the loop question asks about: the plan
    anchors its topics in those statements' pages, not in pages that merely use the words
    (the debugger's ``break`` command)."""
    context = ResearchContext(
        session_id="s",
        query="How do for loops and while loops work in Python, including break and continue?",
    )
    plan = offline.plan(context, offline.analyze(context), 5)
    anchored = " ".join(q for t in plan.topics for q in t.queries)
    for statement in ("The for statement", "The while statement", "The break statement"):
        assert statement in anchored, anchored
    assert "Debugger" not in anchored


def test_a_topic_whose_quotes_repeat_another_section_is_not_reported_as_open(offline):
    report = offline.write_report(
        _material_with({"How it works: the with statement": WITH, "Key concepts: exits": WITH})
    )
    text = " ".join([report.conclusion, *(s.content for s in report.sections)])
    assert "Key concepts: exits" not in text  # covered by the first section, not a gap


def test_every_document_about_the_question_gets_a_topic(offline):
    """Beyond the complexity's four topics, a page with a section on context managers
    (special method names) gets one too, or it would never be read and cited; the
    debugger, which only repeats "break" and "continue", does not for the loop question."""
    context = _context()
    plan = offline.plan(context, offline.analyze(context), 6)
    corpus = shared_corpus()
    anchors = [corpus.search(t.queries[1], 1)[0].url.rsplit("/", 1)[-1] for t in plan.topics]
    assert len(plan.topics) == 5 and "specialnames" in anchors, anchors
    loops = _context(
        "How do for loops and while loops work in Python, including break and continue?"
    )
    plan = offline.plan(loops, offline.analyze(loops), 6)
    anchors = [corpus.search(t.queries[1], 1)[0].url.rsplit("/", 1)[-1] for t in plan.topics]
    assert "debugger" not in anchors, anchors


def test_a_question_in_another_language_is_also_searched_for_its_carried_terms(offline):
    """The raw Chinese question matched nothing in the English corpus: no page was read."""
    queries = offline.search_queries("如何在Python中使用with语句？", 4, "zh")
    assert queries[:2] == ["如何在Python中使用with语句？", "with"]
    english = "How does the with statement work?"
    assert offline.search_queries(english, 4, "en")[0] == english
    assert "with" not in offline.search_queries(english, 4, "en")


def test_a_page_summary_is_of_sentences_not_of_the_pages_first_words(offline):
    """The Chinese question's words are glued to "functools" ("中使用functools"), so no
    sentence ranked and the summary was the page's first 60 words: the module's index of
    signatures, which the report then quoted as its lead."""
    page = offline.corpus.fetch("corpus://python-stdlib/functools")
    summary = offline.summarize_page("如何在Python中使用functools.wraps装饰器？", page, "zh")
    assert "_CacheInfo" not in summary.summary
    assert any("wraps" in s for s in summary.relevant_sentences)  # by its carried terms
    unranked = offline.summarize_page("ничего", page, "ru")
    assert unranked.summary and "_CacheInfo" not in unranked.summary


def test_follow_up_questions_are_never_made_of_the_engines_own_words(offline):
    """With nothing to quote they were drawn from the report's fixed sections: "What are
    practical examples of maximal marginal relevance?", "How does sources read relate to
    GIL?"."""
    material = ReportMaterial(
        context=_context("What is the GIL?"),
        findings=[],
        sources=[Source(n=1, url="corpus://python-reference/with", title="The with statement")],
    )
    report = offline.write_report(material)
    assert report.follow_up_questions
    for question in report.follow_up_questions:
        words = set(question.lower().rstrip("?").split()) - {"gil"}
        assert not words & {"marginal", "relevance", "sources", "report", "covers"}, question
    assert "GIL" in report.follow_up_questions[0]


def test_chat_quotes_the_documents_about_the_question_not_its_everyday_words(offline):
    """ "read" and "file" brought zipfile ("Read and write ZIP files") and tempfile in."""
    answer = offline.answer("How do I read a JSON file in Python?", [], "en").answer
    assert "Deserialize" in answer and "json" in answer.split("\n\n")[0]
    assert "ZIP" not in answer and "tempfile" not in answer


def test_a_search_answer_quotes_the_page_chosen_by_meaning(offline):
    """The answer said "nothing fits this question" although it had read hashlib's page:
    no quote of it carried half of "compute", "SHA-256", "hash" and "file"."""
    query = "How do I compute the SHA-256 hash of a file?"
    modules = ("difflib", "hashlib", "dataclasses")
    pages = [offline.corpus.document(f"corpus://python-stdlib/{m}") for m in modules]
    summaries = [offline.summarize_page(query, page, "en") for page in pages]
    answer = offline.synthesize(query, summaries, "en", 60, 200)
    assert [s.url for s in answer.sources] == ["corpus://python-stdlib/hashlib"]


def test_an_answer_opens_with_the_page_most_about_the_question(offline):
    """Ranked by shared words alone, pdb's "after normal exit of the program" came first and
    atexit's quotes, the page chosen by meaning, came late (search) or not at all (chat).
    An answer now hears its sources in the order of meaning, a few quotes at a time."""
    query = "How can I run code when my program exits?"
    modules = ("python-reference/debugger", "python-stdlib/subprocess", "python-stdlib/atexit")
    pages = [offline.corpus.document(f"corpus://{m}") for m in modules]
    summaries = [offline.summarize_page(query, page, "en") for page in pages]
    opening = offline.synthesize(query, summaries, "en", 60, 200).answer.split("\n\n")[0]
    assert "Register a function to be executed upon normal program termination [3]" in opening
    assert "[1]" not in opening and "[2]" not in opening
    quotes = offline.answer(query, [], "en").answer.split("\n\n")[1]
    assert quotes.startswith("allow programmer to define multiple exit functions")


def test_a_section_named_after_a_module_holds_only_that_modules_quotes(offline):
    """The researcher of the topic "contextlib" also quoted the reference page it read; under
    the heading "Contextlib" a reader takes that quote to be contextlib's. It moves to the
    question's own section, and the module's section keeps the module's quotes."""
    with_page, contextlib = "corpus://x/with", "corpus://x/contextlib"
    expression = "The with statement evaluates the context expression to obtain a manager."
    topics = {
        "Key concepts: the with statement": [WITH[0]],
        "contextlib": [
            (expression, with_page),
            ("The contextmanager decorator makes a with statement context manager.", contextlib),
            ("A context manager made by contextmanager runs its code after yield.", contextlib),
        ],
    }
    material = _material_with(topics)
    titles = {with_page: "The with statement", contextlib: "contextlib — Utilities for with"}
    material.sources = [
        s.model_copy(update={"title": titles.get(s.url, s.title)}) for s in material.sources
    ]
    sections, _ = offline_quotes.topic_sections(material, offline.corpus.idf)
    quoted = {heading: [text for text, _ in items] for heading, items in sections}
    assert quoted["The with statement"] == [WITH[0][0], expression]
    assert len(quoted["Contextlib"]) == 2 and expression not in quoted["Contextlib"]


def test_a_section_on_a_yes_no_question_names_its_statement_as_asked(offline):
    """A heading "The with statement calls the context manager's enter method" would claim
    what the question only asks, and a topic "Definition of the with statement calls …",
    listed under Open questions when nothing covers it, is no English."""
    question = "Does the with statement call the context manager's enter method?"
    statement = "the with statement calls the context manager's enter method"
    whether = f"Whether {statement}"
    context = ResearchContext(session_id="s1", query=question, language="en")
    titles = [t.title for t in offline.plan(context, offline.analyze(context), 5).topics]
    assert titles[0] == whether
    assert not [t for t in titles if t.startswith(("Definition of", "How it works:", "When to"))]

    material = _material_with({whether: WITH})
    material.context = material.context.model_copy(update={"query": question})
    report = offline.write_report(material)
    assert report.title == f"{whether}: research report"
    assert report.sections[0].heading == whether


def test_a_search_answer_opens_with_what_each_side_of_a_comparison_is(offline):
    """Ranked on words, "Lists are mutable sequences, …" never reached the answer: the
    sentences naming both lists and tuples outranked it, and the tuples' definition came
    fourth."""
    query = "What is the difference between a list and a tuple in Python?"
    page = offline.corpus.document("corpus://python-reference/typesseq")
    summary = offline.summarize_page(query, page, "en")
    opening = offline.synthesize(query, [summary], "en", 60, 200).answer.split("\n\n")[0]
    assert opening.startswith("Tuples are immutable sequences") or opening.startswith(
        "Lists are mutable sequences"
    )
    assert "Lists are mutable sequences" in opening and "Tuples are immutable sequences" in opening
