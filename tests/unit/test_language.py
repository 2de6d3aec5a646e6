"""The user's language decides the language of every answer and report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shared.tools.language import detect_language

LABELS = Path(__file__).parents[2] / "bench" / "labels.json"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("How do context managers and the with statement work in Python?", "en"),
        ("Как работают менеджеры контекста и оператор with в Python?", "ru"),
        ("Wie funktionieren Kontextmanager in Python und warum sind sie nützlich?", "de"),
        ("上下文管理器是如何工作的", "zh"),
        ("python", "en"),  # one word carries no language signal
        ("", "en"),
        # identifiers swayed the former detector (langdetect): Spanish, French, English
        ("How do I use contextvars to keep per-request values in asyncio code?", "en"),
        ("How do I implement a priority queue in Python?", "en"),
        ("Comment fonctionne le bloc with en Python ?", "fr"),
        ("Was ist eine environment variable?", "de"),
        # short questions
        ("What does super() do?", "en"),
        ("Is Python pass by reference?", "en"),
        ("Explain Python decorators", "en"),
        ("list vs tuple", "en"),  # no language stands out: the default
        ("Warum ist Python langsam?", "de"),
        ("¿Cómo leo un archivo?", "es"),
        ("Comment marche asyncio ?", "fr"),
        ("Come funziona yield?", "it"),
        ("Wat is een generator?", "nl"),
        # scripts of their own: Japanese and Chinese have no spaces between words, and a
        # Ukrainian question was read as Russian
        ("Pythonのデコレータとfunctools.wrapsの使い方", "ja"),
        ("如何使用functools.wraps", "zh"),
        ("파이썬에서 데코레이터는 어떻게 작동하나요?", "ko"),
        ("Як працюють генератори в Python?", "uk"),
        ("Що таке list comprehension?", "uk"),
        ("Что такое декоратор?", "ru"),
    ],
)
def test_detects_the_query_language(text: str, language: str):
    assert detect_language(text) == language


def test_an_unclear_question_keeps_the_callers_default():
    assert detect_language("list vs tuple", default="de") == "de"
    assert detect_language("asyncio", default="fr") == "fr"


def test_every_labelled_question_is_read_as_english():
    """The bench's questions are English: a report in another language is a wrong answer."""
    halves = json.loads(LABELS.read_text(encoding="utf-8"))
    questions = [item["q"] for half in halves.values() for item in half]
    assert len(questions) >= 100
    assert [q for q in questions if detect_language(q) != "en"] == []


def test_detection_is_deterministic():
    text = "Quelles sont les différences entre les générateurs et les itérateurs en Python ?"
    assert len({detect_language(text) for _ in range(5)}) == 1
