"""The LLM reasoner's corrective judge (``Reasoner.judge_coverage``): the model judges
whether a collection's passages cover a topic, with quotes; the code checks the quotes.

A quote the passages do not hold verbatim is dropped, and "covered" with no quote
left is not covered (``shared.core.coverage_models.verified``): the web fallback must
not be skipped on the strength of a sentence the model made up.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from pydantic import BaseModel, Field

from shared.adapters.reasoning.context_budget import passages_context
from shared.core.ask_models import Passage
from shared.core.coverage_models import Coverage, verified
from shared.core.limits import COVERAGE_MAX_QUOTES
from shared.tools.prompts.coverage import build_coverage
from shared.tools.prompts.framing import Messages


class CoverageReply(BaseModel):
    """Field order is the order a model writes them in: the quotes, then the verdict."""

    evidence: list[str] = Field(default_factory=list)
    reason: str
    covered: bool


def messages(topic: str, passages: list[Passage], language: str, max_chars: int) -> Messages:
    today = date.today().isoformat()
    return build_coverage(
        topic, passages_context(passages, max_chars), language, today, COVERAGE_MAX_QUOTES
    )


class LLMCoverage:
    """Mixed into ``LLMReasoner`` (its module is full): its ``_ask`` and ``_budget`` call."""

    _ask: Callable[..., Any]
    _budget: Callable[[str], int]

    def judge_coverage(self, topic: str, passages: list[Passage], language: str) -> Coverage:
        if not passages:
            return Coverage(reason="the collections returned no passage on it")
        prompt = messages(topic, passages, language, self._budget("coverage"))
        reply = self._ask(CoverageReply, "coverage", prompt)
        said = Coverage(
            covered=reply.covered,
            evidence=reply.evidence[:COVERAGE_MAX_QUOTES],
            reason=reply.reason,
        )
        return verified(said, [p.text for p in passages])
