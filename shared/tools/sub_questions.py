"""A compound question's sub-questions: "When was the seal replaced, and how do tasks
handle cancellation?" asks two things, and a collection may answer one of them only.

Split where a clause boundary (a comma or semicolon, then "and", "und", "и"...) or a
question mark starts another question, and only when each part keeps enough words of
its own to be searched: "How do lists and tuples differ?" is one question.
"""

from __future__ import annotations

import re

from shared.core.limits import COVERAGE_SUB_QUESTIONS

MIN_PART_WORDS = 3  # words a part needs to be a question of its own
_BOUNDARY = re.compile(
    r"\s*(?:[,;]\s*(?:and|but|also|und|aber|et|mais|y|pero|и|а|но)\s+|;\s*|[?？]\s+|，|；)",
    re.I,
)


def sub_questions(question: str) -> list[str]:
    """The question's parts, each a question ending with "?"; one part when it asks one thing."""
    text = " ".join(question.split())
    parts = [p.strip(" ,;?？") for p in _BOUNDARY.split(text)]
    parts = [p for p in parts if p]
    if len(parts) < 2 or any(len(re.findall(r"\w+", p)) < MIN_PART_WORDS for p in parts):
        return [text] if text else []
    if len(parts) > COVERAGE_SUB_QUESTIONS:  # each part is judged: a bounded number of calls
        parts[COVERAGE_SUB_QUESTIONS - 1 :] = [", ".join(parts[COVERAGE_SUB_QUESTIONS - 1 :])]
    return [f"{p[0].upper()}{p[1:]}?" for p in parts]
