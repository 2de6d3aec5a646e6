"""Fixed wording of the offline reasoner, per language.

The offline mind writes no prose of its own beyond these templates: body text is
always sentences taken from the sources. Headings, clarifying questions, topic
decompositions and notes come from here (a question's shape and subject are read
in ``question_shape``). The words themselves live in ``texts``, one module per
language, so adding a language means adding one module and naming it below.
Languages without texts fall back to English.
"""

from __future__ import annotations

import re
from types import ModuleType
from typing import Final

from shared.adapters.reasoning.question_shape import (
    NO_SIDE,
    Asked,
    asked_statement,
    query_type_of,
    split_comparison,
    subject_of,
)
from shared.adapters.reasoning.texts import Profile, de, en, es, fr, ru, zh

_LANGUAGES: Final = {"en": en, "ru": ru, "de": de, "es": es, "fr": fr, "zh": zh}

TEXTS: Final[dict[str, dict[str, str]]] = {code: m.TEXTS for code, m in _LANGUAGES.items()}

# Agent profiles per language.
PROFILES: Final[dict[str, list[Profile]]] = {code: m.PROFILES for code, m in _LANGUAGES.items()}

# Which decomposition templates a query type uses, in order of priority.
DECOMPOSITIONS: Final[dict[str, list[str]]] = {
    "definition": [
        "definition",
        "key_concepts",
        "how_it_works",
        "examples",
        "when_to_use",
        "pitfalls",
    ],
    "how_to": ["how_it_works", "key_concepts", "examples", "pitfalls", "when_to_use", "definition"],
    "comparison": [
        "definition",
        "comparison",
        "key_concepts",
        "when_to_use",
        "pitfalls",
        "examples",
    ],
    "why": ["definition", "how_it_works", "key_concepts", "pitfalls", "when_to_use", "examples"],
    "list": ["key_concepts", "examples", "definition", "when_to_use", "pitfalls", "how_it_works"],
    "fact": ["definition", "key_concepts", "examples", "how_it_works", "pitfalls", "when_to_use"],
    "open": ["definition", "key_concepts", "how_it_works", "examples", "pitfalls", "when_to_use"],
}


def texts_for(language: str) -> dict[str, str]:
    """The template dictionary for ``language`` (English when we have none)."""
    return TEXTS.get((language or "en").split("-")[0].lower(), TEXTS["en"])


def texts_for_question(query: str, language: str) -> dict[str, str]:
    """``texts_for(language)``, worded for ``query``: a question asking how to do something
    ("How do I check if a file exists?") has a verb phrase for its subject, which English
    cannot set where a noun goes, so its language's ``TASK_TEXTS`` replace those templates
    ("What can go wrong when you check if a file exists?"); a why-, yes/no or what-happens
    question read as a statement ("my program is slow") takes ``STATEMENT_TEXTS`` ("What
    can I do when …?", "When does it matter whether …?"); a comparison naming both sides,
    ``COMPARISON_TEXTS`` ("When to use a list or a tuple")."""
    module = texts_module(language)
    texts = texts_for(language)
    if module.TASK_TEXTS and re.match(module.TASK_QUESTION, query, re.IGNORECASE):
        return {**texts, **module.TASK_TEXTS}
    if asked := _asked(query, language):
        return {**texts, **module.STATEMENT_TEXTS[asked.kind]}
    if module.COMPARISON_TEXTS and query_type_of(query) == "comparison":
        _, b = split_comparison(subject_of(query), [])
        if b != NO_SIDE:  # both sides named: "When to use a list or a tuple"
            return {**texts, **module.COMPARISON_TEXTS}
    return texts


def statement_for(query: str, language: str) -> str | None:
    """The statement a why-, yes/no or what-happens question asks about ("my program is
    slow"), where ``texts_for_question`` words the question around one."""
    asked = _asked(query, language)
    return asked.statement() if asked else None


def topic_phrase(query: str, language: str, subject: str, a: str, b: str) -> str:
    """The question's subject where a topic's title names a page ("Key concepts: {phrase}")
    and no page is at hand: "how to read an environment variable", "whether a tuple is
    faster than a list", since "Key concepts: read an environment variable" is no English
    and "Key concepts: a tuple is faster than a list" reads as a claim; a comparison's two
    sides (``a``, ``b``), "a list and a tuple", not "difference between a list and a
    tuple"."""
    return _worded(query, language, "topic_phrase", subject=subject, a=a, b=b)


def report_title(query: str, language: str, subject: str) -> str:
    """ "Generators: research report"; for a question about a statement, the statement as
    the question asks it: "Why my program is slow: research report"."""
    title = _worded(query, language, "report_title", subject=subject)
    return _capitalized(title)


def topic_title(query: str, language: str, kind: str, **slots: str) -> str:
    """The title of a planned topic of ``kind``: "Definition of generators"; for a question
    about a statement, the statement as the question asks it ("Whether a tuple is faster than
    a list"), since "Definition of a tuple is faster than a list" is no English. Only the
    title: the topic's searches keep the subject's words. ``slots``: subject, phrase, a, b.
    Capitalized: "{a} compared with {b}" opens on the question's own words."""
    return _capitalized(_worded(query, language, f"topic_{kind}", **slots))


def _worded(query: str, language: str, key: str, **slots: str) -> str:
    """``texts_for_question``'s template ``key`` filled in, the statement a question asks
    about in place of its subject, where the template is worded around one."""
    template = texts_for_question(query, language)[key]
    return template.format(
        **{**slots, "subject": statement_for(query, language) or slots["subject"]}
    )


def _asked(query: str, language: str) -> Asked | None:
    """``query`` as a question about a statement, where ``language`` has the wording for it."""
    asked = asked_statement(query)
    return asked if asked and asked.kind in texts_module(language).STATEMENT_TEXTS else None


def texts_module(language: str) -> ModuleType:
    """The texts module of ``language`` (English when we have none): its word lists."""
    return _LANGUAGES.get((language or "en").split("-")[0].lower(), en)


def profiles_for(language: str) -> list[Profile]:
    return PROFILES.get((language or "en").split("-")[0].lower(), PROFILES["en"])


def fixed_headings() -> frozenset[str]:
    """Headings the offline writer adds itself (any language): they carry no citations."""
    return frozenset(
        texts[key]
        for texts in TEXTS.values()
        for key in ("open_questions", "limitations", "method", "scope", "contrast_heading")
    )


def topic_heading(title: str, query: str, language: str) -> str:
    """A report heading for a planned topic: what it is about, without the plan's template
    ("Pitfalls and edge cases: objects, values and types" -> "Objects, values and types").

    The template names the aspect a topic was *planned* to cover; an extractive writer
    cannot promise its quotes cover that aspect, so the heading names only the subject. A
    topic on the statement a question asks about keeps its title ("Whether a tuple is faster
    than a list"): the statement alone would read as the report's claim."""
    asked = _asked(query, language)
    if asked and any(
        _fills(template, title)
        for key, template in texts_module(language).STATEMENT_TEXTS[asked.kind].items()
        if key.startswith("topic_")
    ):
        return _capitalized(title)
    templates = [*texts_for(language).items(), *texts_module(language).TASK_TEXTS.items()]
    for key, template in templates:
        if not key.startswith("topic_") or key == "topic_comparison":
            continue
        if (core := _fills(template, title)) is not None:
            return _capitalized(core)
    return _capitalized(title)  # "a list compared with a tuple" opens a heading


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def _fills(template: str, title: str) -> str | None:
    """What ``title`` sets in ``template``'s one slot ("Examples: {phrase}"), if it is that
    template filled in; None when it is not."""
    head, _, tail = template.partition("{")
    rest = tail.partition("}")[2]
    if not (head or rest) or not (title.startswith(head) and title.endswith(rest)):
        return None
    return title[len(head) : len(title) - len(rest)].strip() or None
