"""The model roles of the LLM reasoner: one table, one row per Reasoner step.

Each step names a model role (``FAST_MODEL``, ``STRATEGIC_MODEL``,
``LONG_CONTEXT_MODEL``, ``CHAT_MODEL``), a temperature and a token cap; the
spec's values: reformulation 0.3 / 200, follow-up questions 0.7 / 500,
answers 0.3 / 2000, chat up to 16384.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ModelRole = Literal["fast", "strategic", "long_context", "chat"]


@dataclass(frozen=True)
class Role:
    model: ModelRole
    temperature: float
    max_tokens: int


ROLES: dict[str, Role] = {
    "chat": Role("chat", 0.5, 16384),
    "reformulate": Role("strategic", 0.3, 200),
    "search_queries": Role("strategic", 0.5, 400),
    "time_range": Role("fast", 0.0, 200),
    "follow_up_queries": Role("strategic", 0.5, 400),
    "summarize_page": Role("fast", 0.2, 1000),
    "completeness": Role("fast", 0.1, 1500),  # per-topic coverage after each search round
    "answer": Role("fast", 0.3, 2000),  # synthesize; grows with the requested length
    "clarify": Role("strategic", 0.3, 800),
    "analyze": Role("strategic", 0.2, 600),
    "plan": Role("strategic", 0.4, 2000),
    "agent_profiles": Role("strategic", 0.5, 1500),
    "agent_step": Role("strategic", 0.3, 600),
    "write_finding": Role("strategic", 0.2, 3000),
    "supervise": Role("strategic", 0.3, 4000),
    "analyst": Role("strategic", 0.2, 1500),
    "critique": Role("strategic", 0.2, 1500),
    "report": Role("long_context", 0.4, 16384),
    "follow_up_questions": Role("strategic", 0.7, 500),
    "ask": Role("fast", 0.2, 1000),  # a question asked of a finished report
    "coverage": Role("fast", 0.0, 600),  # do a collection's passages cover a topic?
}

# Tokens per word by language: English ~1.4; other Latin-script languages ~2;
# Cyrillic, Greek, Arabic, Hindi and agglutinative languages ~3 (their words are
# long and tokenizers split them finely). A "word" of a CJK report is a short phrase.
TOKENS_PER_WORD = {"en": 1.4, "ru": 3.0, "uk": 3.0, "ar": 3.0, "hi": 3.0, "tr": 3.0}
DEFAULT_TOKENS_PER_WORD = 2.0
JSON_OVERHEAD = 1.15  # keys, quoting and escapes around the report's text
REPORT_FIXED_TOKENS = 800  # title, follow-up questions, structure


def answer_role(max_words: int) -> Role:
    """The search answer's role, its output cap grown with the length asked for."""
    base = ROLES["answer"]
    return Role(base.model, base.temperature, max(base.max_tokens, max_words * 3))


def report_role(max_words: int, language: str) -> Role:
    """The report role with an output cap that fits ``max_words`` in ``language``.

    Never above the role's own cap (16,384, what most models can emit in one reply):
    a longer report is continued when the reply stops at the cap (``llm_client``).
    """
    base = ROLES["report"]
    per_word = TOKENS_PER_WORD.get(language.split("-")[0].lower(), DEFAULT_TOKENS_PER_WORD)
    needed = int(max_words * per_word * JSON_OVERHEAD) + REPORT_FIXED_TOKENS
    return Role(base.model, base.temperature, min(base.max_tokens, needed))
