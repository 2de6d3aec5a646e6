"""The offline reasoner speaks the question's language wherever it writes its own words.

A German, Spanish, French or Chinese question answered offline must get headings,
summary sentences, plan titles and notes in its language, not half in English. These
tests hold every language's wording to the English reference (same keys, same
placeholders), check that topic headings still come apart into their subject, and
that the question's shape and subject are read in each language.
"""

from __future__ import annotations

import string

import pytest

from shared.adapters.reasoning.offline import OfflineReasoner
from shared.adapters.reasoning.offline_report import source_questions
from shared.adapters.reasoning.question_shape import (
    asked_statement,
    query_type_of,
    split_comparison,
    subject_of,
)
from shared.adapters.reasoning.question_terms import unframed
from shared.adapters.reasoning.templates import (
    PROFILES,
    TEXTS,
    texts_for,
    texts_module,
    topic_heading,
)
from shared.core.research_models import ResearchContext
from tests.contract.conftest import fixture_findings, fixture_material, shared_corpus

LANGUAGES = sorted(TEXTS)


def _fields(template: str) -> list[str]:
    return sorted(name for _, name, _, _ in string.Formatter().parse(template) if name)


def test_the_report_languages_all_have_offline_wording():
    assert set(LANGUAGES) == {"en", "ru", "de", "es", "fr", "zh"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_language_has_every_english_key_with_the_same_placeholders(language):
    english, texts = TEXTS["en"], TEXTS[language]
    assert sorted(texts) == sorted(english)
    wrong = {k: _fields(texts[k]) for k in english if _fields(texts[k]) != _fields(english[k])}
    assert not wrong, f"placeholders differ from English: {wrong}"
    assert all(value.strip() for value in texts.values())


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_language_has_as_many_agent_profiles_as_english(language):
    profiles = PROFILES[language]
    assert len(profiles) == len(PROFILES["en"])
    assert len({name for name, *_ in profiles}) == len(profiles)  # agents tell apart by name


@pytest.mark.parametrize("language", LANGUAGES)
def test_topic_headings_recover_the_subject_from_each_plan_template(language):
    templates = [
        (k, v)
        for texts in (TEXTS[language], texts_module(language).TASK_TEXTS)
        for k, v in texts.items()
        if k.startswith("topic_")
    ]
    for key, template in templates:
        if key == "topic_comparison":
            continue
        title = template.format(subject="context managers", phrase="context managers")
        heading = topic_heading(title, "How do context managers work?", language)
        assert heading == "Context managers", key


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_languages_wording_for_a_task_replaces_templates_it_has(language):
    english, module = TEXTS["en"], texts_module(language)
    for wording in (module.TASK_TEXTS, *module.STATEMENT_TEXTS.values()):
        assert set(wording) <= set(english)
        assert all(_fields(wording[k]) == _fields(english[k]) for k in wording)


def test_an_unknown_language_falls_back_to_english():
    assert texts_for("it") is TEXTS["en"]
    assert texts_for("de-AT") is TEXTS["de"]


@pytest.mark.parametrize(
    ("question", "subject", "kind"),
    [
        ("Wie funktioniert der with-Block in Python?", "der with-Block", "how_to"),
        ("Was ist ein Kontextmanager?", "Kontextmanager", "definition"),
        ("Warum braucht man Kontextmanager?", "Kontextmanager", "why"),
        ("¿Cómo funciona el bloque with en Python?", "el bloque with", "how_to"),
        ("¿Qué es un gestor de contexto?", "gestor de contexto", "definition"),
        ("¿Por qué se usan los generadores?", "los generadores", "why"),
        ("Comment fonctionne le bloc with en Python ?", "le bloc with", "how_to"),
        ("Qu'est-ce qu'un gestionnaire de contexte ?", "gestionnaire de contexte", "definition"),
        ("Pourquoi utiliser des générateurs ?", "des générateurs", "why"),
        ("Python 中的 with 语句是如何工作的？", "with 语句", "how_to"),
        ("什么是上下文管理器？", "上下文管理器", "definition"),
        ("为什么要使用生成器？", "生成器", "why"),
    ],
)
def test_subject_and_shape_are_read_in_each_language(question, subject, kind):
    assert subject_of(question) == subject
    assert query_type_of(question) == kind


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        # "mean" after an article is what is computed, not the verb that ends the subject
        (
            "How do I compute the mean and median of a list of numbers?",
            "compute the mean and median of a list of numbers",
        ),
        ("What is a mean value used for?", "mean value"),
        ("Why do type hints mean nothing at run time?", "type hints"),  # a verb still ends it
    ],
)
def test_a_noun_after_an_article_does_not_end_the_subject(question, subject):
    assert subject_of(question) == subject


@pytest.mark.parametrize(
    ("question", "sides"),
    [
        ("Was ist der Unterschied zwischen Listen und Tupeln?", ("Listen", "Tupeln")),
        ("¿Cuál es la diferencia entre listas y tuplas?", ("listas", "tuplas")),
        ("Quelle est la différence entre listes et tuples ?", ("listes", "tuples")),
        ("列表和元组有什么区别？", ("列表", "元组")),
    ],
)
def test_comparisons_are_read_in_each_language(question, sides):
    assert query_type_of(question) == "comparison"
    assert split_comparison(subject_of(question), []) == sides


def test_a_german_question_answered_offline_gets_a_german_plan_and_report():
    offline = OfflineReasoner(shared_corpus())
    context = ResearchContext(
        session_id="s1", query="Wie funktioniert der with-Block in Python?", language="de"
    )
    plan = offline.plan(context, offline.analyze(context), 3)
    # one topic per page about the with statement (the with statement, context managers)
    assert len(plan.topics) == 2
    assert plan.summary == "2 Themen zu „Wie funktioniert der with-Block in Python?“."
    assert plan.topics[0].title == "Funktionsweise: der with-Block"
    assert plan.topics[1].title.split(": ")[0] == "Kernkonzepte"

    findings = [
        finding.model_copy(update={"topic": topic.title})
        for finding, topic in zip(fixture_findings(), plan.topics, strict=False)
    ]
    material = fixture_material().model_copy(update={"context": context, "findings": findings})
    report = offline.write_report(material)

    de, en = texts_for("de"), texts_for("en")
    headings = [section.heading for section in report.sections]
    assert report.title == "Der with-Block: Recherchebericht"
    assert headings[0] == "Der with-Block"  # the plan's German template is taken off
    assert de["open_questions"] in headings and en["open_questions"] not in headings
    assert report.executive_summary.startswith("Dieser Bericht beantwortet „Wie funktioniert")
    assert "ohne Sprachmodell" in report.limitations[0]
    assert report.follow_up_questions
    assert all(q.startswith(("Was", "Welche", "Wie", "Wann")) for q in report.follow_up_questions)


@pytest.mark.parametrize(
    ("question", "subject", "kind"),
    [
        ("Comment lines in Python?", "Comment lines", "open"),
        ("How do I write a comparator in Python?", "write a comparator", "how_to"),
    ],
)
def test_english_words_that_open_french_or_spanish_questions_stay_english(question, subject, kind):
    assert subject_of(question) == subject
    assert query_type_of(question) == kind


def test_a_comparison_topic_heading_opens_with_a_capital():
    assert topic_heading("a list compared with a tuple", "", "en") == "A list compared with a tuple"


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("What is the best way to read a file line by line?", "read a file line by line"),
        ("What's the easiest way to merge two dicts?", "merge two dicts"),
        ("Is there a way to run a function on exit?", "run a function on exit"),
    ],
)
def test_a_how_to_asked_as_a_what_or_a_yes_no_is_a_how_to(question, subject):
    assert subject_of(question) == subject
    assert query_type_of(question) == "how_to"  # not a definition of "best way to …"
    follow_ups = OfflineReasoner(shared_corpus()).follow_up_questions(question, "", "en")
    assert f"What can go wrong when you {subject}?" in follow_ups


def test_a_question_asking_how_to_do_something_gets_follow_ups_and_topics_in_english():
    """The subject of "How do I check if a file exists?" is a verb phrase, and "What are
    common mistakes with check if a file exists?" is not English."""
    offline = OfflineReasoner(shared_corpus())
    question = "How do I check if a file exists?"
    asked = offline.follow_up_questions(question, "", "en")
    assert "What can go wrong when you check if a file exists?" in asked
    assert "What other ways are there to check if a file exists?" in asked
    assert not [q for q in asked if " with check " in q or " of check " in q]

    context = ResearchContext(session_id="s1", query=question, language="en")
    titles = [t.title for t in offline.plan(context, offline.analyze(context), 5).topics]
    assert "How to check if a file exists" in titles
    assert not [t for t in titles if t.startswith(("Definition of check", "When to use check"))]
    heading = topic_heading("How to check if a file exists", question, "en")
    assert heading == "Check if a file exists"

    noun = offline.follow_up_questions("How do context managers work?", "", "en")
    assert "What are common mistakes with context managers?" in noun


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        # a comparison asked after a colon: the two sides ("… tuples: when should each be")
        ("Compare Python lists and tuples: when should each be used?", "Python lists and tuples"),
        ("Generators vs lists: which uses less memory?", "Generators vs lists"),
        # not a comparison: the clause after the colon names the subject
        ("asyncio: how do tasks get cancelled?", "asyncio: how do tasks get cancelled"),
        # whoever asks how to do something is not part of the subject
        ("How do you use decorators?", "use decorators"),
        ("How can one measure execution time?", "measure execution time"),
        ("How could I speed up a loop?", "speed up a loop"),
        ("How do items get compared?", "items"),  # "i" opens a word: not "I"
        # a passive how-question's subject ends before its participle
        ("How are exceptions handled in Python?", "exceptions"),
        ("How is memory managed?", "memory"),
        ("How are integer and imaginary literals written?", "integer and imaginary literals"),
        ("How is a pickled object restored?", "a pickled object"),  # after an article: a noun
        # the article goes; a follow-up question takes it back (below)
        ("What is a generator?", "generator"),
        ("What’s the GIL?", "GIL"),
        ("What's a closure?", "closure"),
        ("What are generators?", "generators"),
        # a second question after ", and" has a subject of its own
        ("What is the GIL, and why does it exist?", "GIL"),
        ("What is a generator, and how do I write one?", "generator"),
        # a choice: the things to choose between, not what they are for
        ("Should I use pathlib or os.path to work with file paths?", "pathlib or os.path"),
        ("Should we pick a dataclass or a dict for a record?", "a dataclass or a dict"),
        # a why-question's subject ends at its verb; with "I" it is what the asker does
        (
            "Why does my function's default list keep items from earlier calls?",
            "my function's default list",
        ),
        ("Why is my Python program slow?", "my Python program"),
        (
            "Why do the functions I create in a loop return the last value?",
            "the functions I create in a loop",
        ),
        (
            "Why can't I change one character of a string in place?",
            "change one character of a string in place",
        ),
        ("Why is there a GIL?", "a GIL"),
        ("Why are Python strings immutable?", "Python strings"),
        ("Does Python have tail call optimization?", "tail call optimization"),
        ("Can I use a list as a dictionary key?", "use a list as a dictionary key"),
        # "What does X do?", "What does X mean?": X
        ("What does the yield keyword do?", "the yield keyword"),
        ("What does *args mean in a function definition?", "*args"),
        ("What does it mean for an object to be hashable?", "a hashable object"),
        ("What does it mean for a class to be abstract?", "an abstract class"),
        ("What does it mean to be pythonic?", "pythonic"),
        ("What does a function return when it has no return statement?", "a function"),
        (
            'What does if __name__ == "__main__": do at the bottom of a script?',
            'if __name__ == "__main__"',
        ),
        ("What do the three dots (...) mean in code?", "the three dots (...)"),
        # a task's verbs are part of it: "hand", "… the lines that" are not what is asked
        ("How do I hand work from one thread to another?", "hand work from one thread to another"),
        ("How do I show the lines that differ?", "show the lines that differ"),
        # "How does X VERB …?": X, where the verb is one questions about code use
        ("How does functools.lru_cache memoize function calls?", "functools.lru_cache"),
        ("How does the del statement remove names and items?", "the del statement"),
        ("How does the import statement find and load modules?", "the import statement"),
        # "and" before a participle: "chained" is no verb here
        (
            "How are comparisons and chained comparisons evaluated?",
            "comparisons and chained comparisons",
        ),
        # at a clause that opens late enough, else after twelve words, not on "of" or "the"
        (
            "How do I keep a list in sorted order while I keep inserting new items into it?",
            "keep a list in sorted order",
        ),
        (
            "How do I check in a unit test that my function raises an error for bad input?",
            "check in a unit test that my function raises an error",
        ),
        (
            "How do the closures I create inside a loop all capture the same value of the name?",
            "the closures I create inside a loop all capture the same value",
        ),
    ],
)
def test_the_subject_is_what_the_question_asks_about(question, subject):
    assert subject_of(question) == subject


@pytest.mark.parametrize(
    ("question", "sides"),
    [
        (
            "Should I use the random module or secrets to generate a token?",
            ("the random module", "secrets"),
        ),
        ("Which is better for a small record, a dataclass or a dict?", ("a dataclass", "a dict")),
        ("Which one should I use: threading or asyncio?", ("threading", "asyncio")),
        ("What is the difference between == and is when comparing objects?", ("==", "is")),
    ],
)
def test_a_choice_between_two_things_is_a_comparison(question, sides):
    assert query_type_of(question) == "comparison"
    assert split_comparison(subject_of(question), []) == sides
    assert query_type_of("Should I use pathlib for file paths?") != "comparison"  # no choice


@pytest.mark.parametrize(
    ("question", "language", "asked"),
    [
        # a comparison's follow-up questions are about its two sides
        (
            "What is the difference between a list and a tuple in Python?",
            "en",
            "What are common mistakes with a list and a tuple?",
        ),
        (
            "Was ist der Unterschied zwischen Listen und Tupeln?",
            "de",
            "Welche typischen Fehler gibt es beim Thema „Listen und Tupeln“?",
        ),
        # they keep the article the question set: not "… mistakes with generator?"
        ("What is a generator?", "en", "What are common mistakes with a generator?"),
        ("What’s the GIL?", "en", "What are common mistakes with the GIL?"),
        ("What's a closure?", "en", "What are common mistakes with a closure?"),
        ("What are generators?", "en", "What are common mistakes with generators?"),
        (
            "Should I use pathlib or os.path to work with file paths?",
            "en",
            "What are common mistakes with pathlib and os.path?",
        ),
    ],
)
def test_follow_up_questions_name_the_subject_as_a_reader_would(question, language, asked):
    follow_ups = OfflineReasoner(shared_corpus()).follow_up_questions(question, "", language)
    assert asked in follow_ups
    assert not [q for q in follow_ups if "difference between" in q or "Unterschied" in q]


@pytest.mark.parametrize(
    ("question", "statement"),
    [
        ("Why does -2**2 give -4 in Python?", "-2**2 gives -4"),
        ("Why is my Python program slow?", "my Python program is slow"),
        (
            "Why is float('nan') not equal to itself, and how do I test for it?",
            "float('nan') is not equal to itself",
        ),
        ("Why are default arguments evaluated once?", "default arguments are evaluated once"),
        ("Why is list.sort() faster than sorted()?", "list.sort() is faster than sorted()"),
        ("Why can't I change a character of a string?", "I can't change a character of a string"),
        ("Why doesn't my loop stop?", "my loop doesn't stop"),
        ("Why does Python have a GIL?", "Python has a GIL"),
        (
            "Why do the lambdas I make in a loop return the same value?",
            "the lambdas I make in a loop return the same value",
        ),
        # an article starts what X is, unless a preposition or a gerund comes before it
        ("Why is None a singleton?", "None is a singleton"),
        ("Why is the result of a division a float?", "the result of a division is a float"),
        # a yes/no question asks whether the statement holds
        ("Does Python have tail call optimization?", "Python has tail call optimization"),
        ("Is a tuple faster than a list?", "a tuple is faster than a list"),
        ("Are Python strings mutable?", "Python strings are mutable"),  # not "Python are …"
        ("Can I use a list as a dictionary key?", "I can use a list as a dictionary key"),
        ("Is building a string with += slower?", "building a string with += is slower"),
        # "What happens when …?" asks about what follows the statement
        ("What happens when a finally block raises?", "a finally block raises"),
        # no statement: reasons to do something, advice, no verb we know, or another question
        ("Why should I use generators?", None),
        ("Should I use generators?", None),
        ("Why does my script segfault?", None),
        ("What is a generator?", None),
    ],
)
def test_a_why_or_yes_no_question_is_read_as_the_statement_it_asks_about(question, statement):
    asked = asked_statement(question)
    assert (asked.statement() if asked else None) == statement


def test_a_why_question_gets_a_title_and_follow_ups_about_its_statement():
    """Not "My Python program slow: research report", nor "What are common mistakes with my
    Python program slow?"."""
    offline = OfflineReasoner(shared_corpus())
    question = "Why is my Python program slow?"
    follow_ups = offline.follow_up_questions(question, "", "en")
    assert "What can I do when my Python program is slow?" in follow_ups
    assert "What else can explain why my Python program is slow?" in follow_ups
    assert not [q for q in follow_ups if "program slow" in q]

    context = ResearchContext(session_id="s1", query=question, language="en")
    report = offline.write_report(fixture_material().model_copy(update={"context": context}))
    assert report.title == "Why my Python program is slow: research report"
    assert not [q for q in report.follow_up_questions if "program slow" in q]
    # German has no wording for a statement: its templates quote the subject
    german = offline.follow_up_questions(question, "", "de")
    assert "Welche typischen Fehler gibt es beim Thema „my Python program“?" in german


def test_a_what_happens_question_gets_follow_ups_about_its_statement():
    question = "What happens when an exception is raised inside a finally block?"
    assert subject_of(question) == "an exception is raised inside a finally block"
    follow_ups = OfflineReasoner(shared_corpus()).follow_up_questions(question, "", "en")
    assert "What can go wrong when an exception is raised inside a finally block?" in follow_ups
    assert not [q for q in follow_ups if "What happens when an" in q]


def test_a_question_asking_when_to_do_something_gets_follow_ups_worded_for_a_task():
    follow_ups = OfflineReasoner(shared_corpus()).follow_up_questions(
        "When should I use a generator instead of a list?", "", "en"
    )
    assert "What can go wrong when you use a generator instead of a list?" in follow_ups
    assert not [q for q in follow_ups if " with use " in q or " of use " in q]


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("Can you explain decorators?", "decorators"),
        ("Could you please explain how context managers work?", "context managers"),
        ("Can you tell me about generators?", "generators"),
    ],
)
def test_a_polite_request_is_no_yes_no_question(question, subject):
    """Not "When does it matter whether you can explain decorators?"."""
    assert subject_of(question) == subject
    follow_ups = OfflineReasoner(shared_corpus()).follow_up_questions(question, "", "en")
    assert f"What are common mistakes with {subject}?" in follow_ups
    shown = "Can you show me how to read a file?"
    assert subject_of(shown) == "read a file"
    assert "What can go wrong when you read a file?" in (
        OfflineReasoner(shared_corpus()).follow_up_questions(shown, "", "en")
    )


def test_a_question_that_keeps_its_frame_is_quoted_in_its_follow_ups():
    """No template can set "Where does Python look for modules" where a noun goes ("What
    are common mistakes with Where does Python look for modules?")."""
    offline = OfflineReasoner(shared_corpus())
    question = "Where does Python look for modules?"
    asked = "What do other sources say about “Where does Python look for modules”?"
    follow_ups = offline.follow_up_questions(question, "The import system searches sys.path.", "en")
    assert asked in follow_ups
    assert not [q for q in follow_ups if " with Where " in q or " of Where " in q]
    cited = source_questions([], ["The import system", "sys"], question, "en")
    assert "What does “sys” say about “Where does Python look for modules”?" in cited
    assert asked in cited


def test_a_yes_no_question_gets_follow_ups_about_whether_its_statement_holds():
    """Not "What are common mistakes with Does Python have tail call optimization?"."""
    offline = OfflineReasoner(shared_corpus())
    follow_ups = offline.follow_up_questions("Does Python have tail call optimization?", "", "en")
    assert "When does it matter whether Python has tail call optimization?" in follow_ups
    assert not [q for q in follow_ups if "Does Python" in q]
    # asked as a yes/no, "Is there a way to …?" is still a task
    task = offline.follow_up_questions("Is there a way to run a function on exit?", "", "en")
    assert "What can go wrong when you run a function on exit?" in task


def test_a_comparisons_imperative_frame_is_not_searched_for():
    """ "Compare Python lists and tuples" is about lists and tuples: searched whole, by
    meaning, it came nearest the pages on comparisons and difflib's "compare sequences"."""
    question = "Compare Python lists and tuples: when should each be used?"
    assert unframed(question) == "Python lists and tuples: when should each be used?"
    assert unframed("Compare") == "Compare"  # nothing left to search for: as written
    assert unframed("How do lists compare with tuples?") == "How do lists compare with tuples?"
