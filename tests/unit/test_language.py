"""The user's language decides the language of every answer and report."""

from __future__ import annotations

import pytest

from shared.tools.language import detect_language


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("How do context managers and the with statement work in Python?", "en"),
        ("Как работают менеджеры контекста и оператор with в Python?", "ru"),
        ("Wie funktionieren Kontextmanager in Python und warum sind sie nützlich?", "de"),
        ("上下文管理器是如何工作的", "zh"),
        ("python", "en"),  # one word carries no language signal
        ("", "en"),
    ],
)
def test_detects_the_query_language(text: str, language: str):
    assert detect_language(text) == language


def test_detection_is_deterministic():
    text = "Quelles sont les différences entre les générateurs et les itérateurs en Python ?"
    assert len({detect_language(text) for _ in range(5)}) == 1
