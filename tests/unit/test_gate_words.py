"""The citation gate's everyday words come from each language's texts (``gate_words``):
a question in German or Spanish has its own qualifiers, idioms and how-to opening."""

from __future__ import annotations

import pytest

from shared.adapters.reasoning.gate_words import gate_words
from shared.adapters.reasoning.relevance import question_gate
from shared.adapters.reasoning.templates import TEXTS, texts_module

PAGES = {
    "os": ["Get an environment variable.", "Change or add an environment variable."],
    "time": ["The TZ environment variable sets the zone."],
}
IDF = {"environment": 2.0, "variable": 1.3, "environ": 2.0, "getenv": 2.0, "tiempo": 0.0}


@pytest.mark.parametrize("language", sorted(TEXTS))
def test_every_language_declares_the_gate_words(language):
    module = texts_module(language)
    for name in ("GATE_FRAME", "GATE_QUALIFIERS", "GATE_HOW_TO"):
        assert isinstance(getattr(module, name), str)
    assert isinstance(module.GATE_IDIOMS, tuple)
    gate_words(language, "en")  # the idioms and the how-to pattern compile


@pytest.mark.parametrize(
    ("language", "question"),
    [
        ("en", "How do I read an environment variable?"),
        ("de", "Wie kann ich eine environment variable lesen?"),
        ("es", "¿Cómo puedo leer una environment variable?"),
        ("fr", "Comment puis-je lire une environment variable ?"),
        ("ru", "Как мне прочитать environment variable?"),
        ("zh", "如何读取 environment variable？"),
    ],
)
def test_a_how_to_in_the_questions_own_language_is_answered(language, question):
    gate = question_gate(question, IDF, language)
    assert gate.answering(PAGES) == "os"


def test_a_how_to_opening_of_another_language_is_no_how_to():
    # "How do I" opens an English how-to only: a German question is matched by German words
    gate = question_gate("Was ist eine environment variable?", IDF, "de")
    assert gate.answering(PAGES) is None


def test_a_qualifier_of_the_questions_language_weighs_nothing():
    idf = {"cache": 2.0, "expensive": 2.0, "efficace": 2.0}
    assert "efficac" not in question_gate("Un cache efficace ?", idf, "fr").weights
    assert "cach" in question_gate("Un cache efficace ?", idf, "fr").weights
    # the corpus's own words apply to every question: it weighs words in English
    assert "expens" not in question_gate("Ein expensive cache?", idf, "de").weights


def test_an_idiom_of_the_questions_language_names_no_subject():
    idf = {"zip": 2.0, "tiempo": 2.0, "time": 1.2}
    gate = question_gate("¿Cómo uso zip con dos listas al mismo tiempo?", idf, "es")
    assert "tiempo" not in gate.weights and "zip" in gate.weights
    english = question_gate("How do I zip two lists at the same time?", idf, "en")
    assert "time" not in english.weights
