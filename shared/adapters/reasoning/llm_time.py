"""The LLM reasoner's TimeRangeExtractor stage: a question's period, read by the model.

Asked only for a question that mentions time in words no rule knows
(``shared/adapters/search/temporal.py``). The model's dates are checked here,
not trusted: a reply that is not ISO, runs backwards or starts after today
counts as "no range", so the keyword fallback gets its turn.
"""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel

from shared.core.source_models import TimeRange
from shared.tools.prompts.framing import Messages
from shared.tools.prompts.temporal import build_time_range


class TimeRangeReply(BaseModel):
    """Field order is the order a model writes them in: the reading, then the verdict."""

    reason: str
    is_temporal: bool
    start_date: str
    end_date: str


def messages(query: str, today: date) -> Messages:
    return build_time_range(query, today.isoformat())


def checked_range(reply: TimeRangeReply, today: date) -> TimeRange | None:
    """The reply as a ``TimeRange`` ending no later than today, or None when unusable."""
    if not reply.is_temporal:
        return None
    try:
        start = date.fromisoformat(reply.start_date.strip())
        end = date.fromisoformat(reply.end_date.strip()) if reply.end_date.strip() else today
    except ValueError:
        return None
    end = min(end, today)
    if start > end:
        return None
    return TimeRange(start=start.isoformat(), end=end.isoformat(), label="model")
