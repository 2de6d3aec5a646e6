"""The LLM reasoner's answer to a question asked of a finished session (``Reasoner.answer_from``).

The model sees the session's passages as numbered sources and answers with ``[n]``;
what it writes is then checked, not trusted: a number outside the passages is
removed, and an answer left citing nothing counts as "the sources do not say".
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from pydantic import BaseModel

from shared.adapters.reasoning.context_budget import passages_context
from shared.adapters.report.citations import cited_numbers, strip_unknown_citations
from shared.core.ask_models import Passage, SourcedAnswer
from shared.tools.prompts.ask import build_ask
from shared.tools.prompts.framing import Messages

MAX_WORDS = 250  # an answer under the report, not a second report


class AskReply(BaseModel):
    """Field order is the order a model writes them in."""

    answered: bool
    answer: str


def messages(question: str, passages: list[Passage], language: str, max_chars: int) -> Messages:
    today = date.today().isoformat()
    return build_ask(question, passages_context(passages, max_chars), language, today, MAX_WORDS)


class Asking:
    """``Reasoner.answer_from`` for ``LLMReasoner``, which mixes it in (its module is full):
    the reasoner's own ``_ask`` and ``_budget`` make the call."""

    _ask: Callable[..., Any]
    _budget: Callable[[str], int]

    def answer_from(self, question: str, passages: list[Passage], language: str) -> SourcedAnswer:
        prompt = messages(question, passages, language, self._budget("ask"))
        return checked(self._ask(AskReply, "ask", prompt), passages, language)


def checked(reply: AskReply, passages: list[Passage], language: str) -> SourcedAnswer:
    """The reply with citations outside the passages removed; citing nothing is no answer."""
    allowed = {p.n for p in passages}
    text = strip_unknown_citations(reply.answer, allowed).strip()
    cited = sorted(cited_numbers(text) & allowed)
    answered = reply.answered and bool(cited)
    return SourcedAnswer(
        answer=text, answered=answered, cited=cited if answered else [], language=language
    )
