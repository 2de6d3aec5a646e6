"""Time ranges in questions become absolute dates (English and Russian)."""

from __future__ import annotations

from datetime import date

import pytest

from shared.adapters.search.temporal import parse_time_range

TODAY = date(2025, 5, 15)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("AI regulation news from the last 3 months", "2025-02-15", "2025-05-15"),
        ("what changed in the past 2 weeks", "2025-05-01", "2025-05-15"),
        ("outages in the last 10 days", "2025-05-05", "2025-05-15"),
        ("rust adoption over the last two years", "2023-05-15", "2025-05-15"),
        ("best laptops of the past year", "2024-05-15", "2025-05-15"),
        ("what happened in the last year", "2024-05-15", "2025-05-15"),
        ("top papers last year", "2024-01-01", "2024-12-31"),
        ("releases last month", "2025-04-01", "2025-04-30"),
        ("python releases since 2024", "2024-01-01", "2025-05-15"),
        ("elections in 2023", "2023-01-01", "2023-12-31"),
        ("funding rounds this year", "2025-01-01", "2025-05-15"),
        ("security advisories this month", "2025-05-01", "2025-05-15"),
        ("what was announced yesterday", "2025-05-14", "2025-05-14"),
        ("stock news today", "2025-05-15", "2025-05-15"),
        ("новости ИИ за последние 3 месяца", "2025-02-15", "2025-05-15"),
        ("что изменилось за последний год", "2024-05-15", "2025-05-15"),
        ("инфляция в этом году", "2025-01-01", "2025-05-15"),
        ("релизы Python с 2024 года", "2024-01-01", "2025-05-15"),
        ("выборы в 2023 году", "2023-01-01", "2023-12-31"),
        ("итоги за прошлый год", "2024-01-01", "2024-12-31"),
        ("что случилось вчера", "2025-05-14", "2025-05-14"),
    ],
)
def test_time_ranges(text, start, end):
    window = parse_time_range(text, TODAY)
    assert window is not None
    assert (window.start, window.end) == (start, end)
    assert window.label and window.label in text.lower()


def test_month_arithmetic_clamps_to_month_end():
    window = parse_time_range("last 1 month", date(2025, 3, 31))
    assert window is not None and window.start == "2025-02-28"


@pytest.mark.parametrize(
    "text",
    [
        "how does the python GIL work",
        "python 3.12 features",
        "вопрос 2024",
        "как работает asyncio",
        "error code 2023 in windows installer",
    ],
)
def test_questions_without_a_time_range(text):
    assert parse_time_range(text, TODAY) is None


def test_future_years_yield_no_range():
    assert parse_time_range("since 2030", TODAY) is None
