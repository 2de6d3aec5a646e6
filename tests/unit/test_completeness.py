"""Completeness per topic and of content (issue 30, items 6 and 7), below the flow.

The offline check is extractive: a topic is covered by a sentence about the question
that carries the topic's cue, and a "how to" question needs steps. The model's check
is verified: a quote it cannot show is no evidence.
"""

from __future__ import annotations

from shared.adapters.reasoning.llm_completeness import (
    UNPROVEN_SCORE,
    CompletenessReply,
    TopicVerdict,
    checked,
)
from shared.adapters.reasoning.offline_completeness import evaluate, topics_for
from shared.core.completeness_models import (
    COVERED_SCORE,
    CompletenessReview,
    ContentCheck,
    TopicCompleteness,
)
from shared.core.source_models import PageSummary
from shared.usecases.research.completeness import shortfalls

HOW_TO = "How to install a Python package with pip?"


def summary(url: str, *sentences: str) -> PageSummary:
    return PageSummary(
        url=url, title="pip", summary=" ".join(sentences), relevant_sentences=list(sentences)
    )


WITHOUT_STEPS = [
    summary(
        "https://a.example/pip",
        "pip is the package installer for Python and installs a package from the index.",
        "A Python package installed with pip lands in the site-packages directory.",
    )
]
WITH_STEPS = [
    *WITHOUT_STEPS,
    summary(
        "https://b.example/install",
        "First, install the package with pip by running pip install requests() in a shell.",
        "Then import the package in Python to check that pip installed it.",
    ),
]


def test_a_how_to_question_whose_pages_lack_steps_is_told_what_is_missing() -> None:
    review = evaluate(HOW_TO, [], WITHOUT_STEPS, "en", {})

    assert review.content.needs == ["steps", "code"]
    assert review.content.missing == ["steps", "code"]
    assert not review.content.ok
    assert len(review.content_queries) == 2
    assert any("step by step" in q for q in review.content_queries)


def test_pages_with_steps_and_code_pass_the_content_check() -> None:
    review = evaluate(HOW_TO, [], WITH_STEPS, "en", {})

    assert review.content.ok and review.content_queries == []


def test_each_topic_has_a_score_a_quote_or_gaps_and_a_query_for_them() -> None:
    review = evaluate(HOW_TO, [], WITH_STEPS, "en", {})

    assert [t.topic for t in review.topics] == [title for _, title, _ in topics_for(HOW_TO, "en")]
    quotes = {s for page in WITH_STEPS for s in page.relevant_sentences}
    for topic in review.topics:
        if topic.covered:
            assert topic.evidence in quotes and topic.score >= COVERED_SCORE
        else:
            assert topic.gaps and topic.gap_query and topic.score < COVERED_SCORE
    assert any(t.covered for t in review.topics) and review.gap_queries == [
        t.gap_query for t in review.topics if not t.covered
    ]


def test_a_definition_of_the_subject_covers_its_key_concepts() -> None:
    """A search answer quoting "A context manager is an object that defines the runtime
    context …" said "Not covered by the pages found: Key concepts: context managers"."""
    question = "How do context managers work in Python?"
    read = [
        summary(
            "https://a.example/cm",
            "A context manager is an object that defines the runtime context of a block.",
        )
    ]
    review = evaluate(question, [], read, "en", {})
    concepts = next(t for t in review.topics if t.topic.startswith("Key concepts"))
    assert concepts.covered and concepts.evidence == read[0].relevant_sentences[0]
    shallow = [summary("https://a.example/cm", "Context managers wrap a block in Python.")]
    review = evaluate(question, [], shallow, "en", {})
    assert not next(t for t in review.topics if t.topic.startswith("Key concepts")).covered


def test_nothing_read_covers_nothing_and_pages_of_menus_are_navigation_only() -> None:
    empty = evaluate(HOW_TO, [], [], "en", {})
    assert all(t.score == 0 and not t.covered for t in empty.topics)

    menus = [summary("https://a.example/", "Home", "Docs", "Install pip", "Contents")]
    nav = evaluate(HOW_TO, [], menus, "en", {})
    assert nav.content.navigation_only and not nav.content.ok


def test_a_model_quote_that_is_not_in_the_pages_proves_nothing() -> None:
    reply = CompletenessReply(
        topics=[
            TopicVerdict(topic="Steps", evidence="Run pip install x.", score=0.9, covered=True),
            TopicVerdict(
                topic="Definition",
                evidence="pip is the package installer for Python and installs a package "
                "from the index.",
                score=0.8,
                covered=True,
            ),
        ],
        needs=["steps"],
        missing=["steps", "code"],  # code was never needed: dropped
        content_queries=["pip install steps"],
    )

    review = checked(reply, ["Definition", "Steps", "Pitfalls"], WITHOUT_STEPS)

    definition, steps, pitfalls = review.topics
    assert definition.covered and definition.score == 0.8 and definition.evidence
    assert not steps.covered and steps.score == UNPROVEN_SCORE and steps.evidence == ""
    assert steps.gaps and steps.gap_query == "Steps"
    assert not pitfalls.covered and pitfalls.gaps == ["not judged"]
    assert review.content.missing == ["steps"]
    assert review.content_queries == ["pip install steps"]


def test_another_language_gets_its_own_topic_titles_and_is_judged_on_relevance_alone() -> None:
    question = "Что такое генератор в Python?"
    page = summary("https://a.example/ru", "Генератор в Python возвращает значения по одному.")

    review = evaluate(question, [], [page], "ru", {})

    assert [t.topic for t in review.topics] == [title for _, title, _ in topics_for(question, "ru")]
    assert any(t.topic.startswith("Определение") for t in review.topics), review.topics
    assert all(t.covered for t in review.topics)  # no cue to ask for: relevance alone
    assert review.content.missing == []  # no English cues to check content by


def test_what_an_answer_lacks_is_said_in_its_language():
    """The search answer's limitations were English in every language, and read "give no a
    definition"."""
    review = CompletenessReview(
        topics=[TopicCompleteness(topic="Beispiele"), TopicCompleteness(topic="A", covered=True)],
        content=ContentCheck(missing=["definition", "code"]),
    )
    assert shortfalls(review, "en") == [
        "Not in the pages found, so perhaps not in the answer either: a definition, code examples.",
        "Not covered by the pages found: Beispiele.",
    ]
    assert shortfalls(review, "de") == [
        "Nicht in den gefundenen Seiten, also womöglich auch nicht in der Antwort: eine "
        "Definition, Codebeispiele.",
        "Von den gefundenen Seiten nicht abgedeckt: Beispiele.",
    ]
    assert shortfalls(review, "zh")[0].endswith("：定义、代码示例。")


def test_a_topic_naming_a_task_or_a_statement_reads_as_english():
    """Where a topic's title names a page ("Key concepts: {phrase}") it names the question
    here, which a search answer's limitations list when nothing covered it: "Key concepts:
    read an environment variable" is no English, and "Key concepts: a tuple is faster than
    a list" reads as the report's claim."""
    titles = [title for _, title, _ in topics_for("How do I read an environment variable?", "en")]
    assert "Key concepts: how to read an environment variable" in titles
    assert "Examples: how to read an environment variable" in titles
    titles = [title for _, title, _ in topics_for("Is a tuple faster than a list?", "en")]
    assert "Key concepts: whether a tuple is faster than a list" in titles
    titles = [title for _, title, _ in topics_for("How do generators work?", "en")]
    assert "Key concepts: generators" in titles


def test_a_comparison_naming_both_sides_asks_when_to_use_either():
    """ "What is the difference between a list and a tuple?" is about "difference between a
    list and a tuple": "When to use difference between a list and a tuple" or "Definition of
    difference between …" is no English."""
    question = "What is the difference between a list and a tuple?"
    titles = [title for _, title, _ in topics_for(question, "en")]
    assert "When to use a list or a tuple" in titles
    assert "What a list and a tuple are" in titles
    assert "A list compared with a tuple" in titles
    assert "Key concepts: a list and a tuple" in titles
    assert not [t for t in titles if "difference between" in t]
    one_side = [title for _, title, _ in topics_for("Compare generators", "en")]
    assert not [t for t in one_side if " or " in t]  # no second side to name
