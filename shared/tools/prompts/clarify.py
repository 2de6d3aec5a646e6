"""Deep research: does the query need clarifying questions before we start?"""

from __future__ import annotations

from shared.tools.prompts.framing import Messages, messages, preamble

CLARIFY = """{preamble}

A user asked for a deep research report. Decide whether we must ask them something
before starting. Ask only when the answer would change the research substantially:
an ambiguous subject, a missing scope (region, period, audience, depth), or a choice
between clearly different readings. Do not ask about things the query or the deep
search result already settle, and never ask just to be polite.
Return, in this order:
- reason: one sentence on what the query and the deep search leave open, if anything;
- questions: when something must be asked, 1-3 short, concrete questions (at most 5);
  otherwise empty;
- needed: true when the questions are needed, else false.

{brief}"""


def build_clarify(brief: str, language: str, today: str) -> Messages:
    text = CLARIFY.format(preamble=preamble(today, language), brief=brief)
    return messages("You scope research requests.", text)
