"""The TimeRangeExtractor's order: rules, then the model (only when time is mentioned),
then the "latest / recent" keywords (issue 30, item 3)."""

from __future__ import annotations

from datetime import date

from shared.adapters.reasoning.llm_time import TimeRangeReply, checked_range
from shared.adapters.search.temporal import has_time_cue, keyword_time_range
from shared.core.errors import TransientError
from shared.core.source_models import TimeRange
from shared.usecases.research.time_range import extract_time_range

TODAY = date(2025, 5, 15)
WINTER = TimeRange(start="2023-12-01", end="2024-02-29", label="model")


class Model:
    """A Reasoner's time-range stage that records what it was asked."""

    def __init__(self, answer: TimeRange | None = None, fails: bool = False) -> None:
        self.answer, self.fails, self.asked = answer, fails, []

    def time_range(self, query: str, today: date) -> TimeRange | None:
        self.asked.append(query)
        if self.fails:
            raise TransientError("the model timed out")
        return self.answer


def test_a_rule_answers_without_asking_the_model() -> None:
    model = Model(WINTER)
    found = extract_time_range(model, "python releases since 2024", TODAY)  # type: ignore[arg-type]
    assert found is not None and found.start == "2024-01-01"
    assert model.asked == []


def test_a_period_no_rule_knows_comes_from_the_model() -> None:
    model = Model(WINTER)
    found = extract_time_range(model, "heat pump sales the winter before last", TODAY)  # type: ignore[arg-type]
    assert found == WINTER
    assert len(model.asked) == 1


def test_a_question_without_time_words_costs_no_model_call() -> None:
    model = Model(WINTER)
    assert extract_time_range(model, "how do heat pumps work", TODAY) is None  # type: ignore[arg-type]
    assert model.asked == [] and not has_time_cue("how do heat pumps work")


def test_latest_falls_back_to_the_last_twelve_months_when_the_model_has_no_range() -> None:
    for model in (Model(None), Model(fails=True)):
        found = extract_time_range(model, "the latest rust features", TODAY)  # type: ignore[arg-type]
        assert found is not None and (found.start, found.end) == ("2024-05-15", "2025-05-15")
        assert len(model.asked) == 1
    assert keyword_time_range("самые актуальные новости", TODAY) is not None


def test_model_dates_that_are_not_iso_or_run_backwards_are_no_range() -> None:
    def reply(start: str, end: str) -> TimeRangeReply:
        return TimeRangeReply(reason="r", is_temporal=True, start_date=start, end_date=end)

    assert checked_range(reply("last winter", ""), TODAY) is None
    assert checked_range(reply("2025-03-01", "2025-01-01"), TODAY) is None
    assert checked_range(reply("2026-01-01", ""), TODAY) is None  # starts after today
    capped = checked_range(reply("2025-05-01", "2025-12-31"), TODAY)
    assert capped is not None and capped.end == "2025-05-15"
