"""The TimeRangeExtractor: regex -> model -> keyword fallback, in that order.

The rules (``shared/adapters/search/temporal.py``) are exact and free, so they
answer first. A question they cannot read but that still talks about time
("the winter before last") goes to the Reasoner's ``time_range`` (the offline
engine answers with the same rules, so None). "Latest" / "recent" questions the
model left open fall back to the keyword window. A model failure never stops a
search: the question is then treated as the keyword stage reads it.
"""

from __future__ import annotations

import logging
from datetime import date

from shared.adapters.reasoning.base import Reasoner
from shared.adapters.search.temporal import has_time_cue, keyword_time_range, parse_time_range
from shared.core.errors import ResearchError
from shared.core.source_models import TimeRange

log = logging.getLogger(__name__)


def extract_time_range(reasoner: Reasoner, question: str, today: date) -> TimeRange | None:
    """The absolute period ``question`` asks about, or None when it names none."""
    found = parse_time_range(question, today)
    if found is None and has_time_cue(question):
        try:
            found = reasoner.time_range(question, today)
        except ResearchError as exc:  # the range only narrows searches: go on without the model
            log.warning("the time-range model stage failed (%s)", type(exc).__name__)
    return found or keyword_time_range(question, today)
