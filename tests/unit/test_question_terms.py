"""Which words of a question the gate weighs, and what one in another language carries
into the English corpus."""

from __future__ import annotations

from shared.adapters.reasoning.question_terms import carried_terms, searched_for

IDF = {"comment": 3.0, "en": 3.0, "environment": 2.0, "variable": 1.5, "python": 0.0, "with": 0.3}


def test_english_terms_and_keywords_carry_over_frame_words_do_not():
    question = "Comment puis-je lire une environment variable en Python ?"
    assert carried_terms(question, IDF, "fr") == ["environment", "variable"]
    assert carried_terms("Как работает оператор with?", IDF, "ru") == ["with"]


def test_a_question_in_the_corpus_language_is_searched_as_asked():
    question = "How do I read an environment variable?"
    assert searched_for(question, IDF, "en") == question
    assert searched_for("Comment lire une environment variable ?", IDF, "fr") == (
        "environment variable"
    )
    assert searched_for("Wie funktionieren Generatoren?", IDF, "de") == ""


def test_a_dotted_name_carries_over_whole():
    """Its words were looked up as written ("functools"), not as the idf keeps them
    ("functool"), so nothing carried over and the search fell back to the German question."""
    idf = {"functool": 2.0, "wrap": 2.0}
    question = "Wie benutze ich functools.wraps mit Dekoratoren?"
    assert carried_terms(question, idf, "de") == ["functools", "wraps"]
    assert searched_for(question, idf, "de") == "functools wraps"
