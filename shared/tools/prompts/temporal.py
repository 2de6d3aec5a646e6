"""The TimeRangeExtractor's model stage: the period a question asks about, as dates."""

from __future__ import annotations

from shared.tools.prompts.framing import Messages, messages, preamble, query_block

TIME_RANGE = """{preamble}

Which period of time does the question below ask about? The rules we tried first did
not recognise its wording, so read it as a person would ("the winter before last",
"since the pandemic began", "over the past fortnight", "во второй половине прошлого года").
Reply with:
- reason: one sentence on how you read it;
- is_temporal: true only when the question limits the period it asks about;
- start_date and end_date: ISO dates (YYYY-MM-DD), absolute, computed from today's date,
  never after today; empty strings when is_temporal is false.

{query}"""


def build_time_range(query: str, today: str) -> Messages:
    text = TIME_RANGE.format(preamble=preamble(today, "en"), query=query_block(query))
    return messages("You read dates and periods out of questions.", text)
