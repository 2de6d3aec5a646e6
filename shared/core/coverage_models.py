"""The corrective judge's verdict: do a collection's passages cover one planned topic?

A verdict is only as good as the quotes that prove it, so :func:`verified` keeps the
quotes found verbatim in the passages (spacing aside) and long enough to prove something
(``COVERAGE_MIN_QUOTE_WORDS`` words or ``COVERAGE_MIN_QUOTE_CHARS`` characters), and calls a
topic covered only while one survives: a model that says "covered" without showing where,
or on the strength of one word the passages hold, proves nothing.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from shared.core.limits import COVERAGE_MIN_QUOTE_CHARS, COVERAGE_MIN_QUOTE_WORDS

TopicSourceKind = Literal["collection", "web"]


class Coverage(BaseModel):
    covered: bool = False
    evidence: list[str] = Field(default_factory=list)  # verbatim quotes from the passages
    reason: str = ""


class TopicSource(BaseModel):
    """What one topic rested on: the collections (covered, or the web was not allowed) or
    the web (with the collections' results fused in), and the judge's verdict."""

    topic: str
    source: TopicSourceKind
    covered: bool
    evidence: list[str] = Field(default_factory=list)
    reason: str = ""


def verified(coverage: Coverage, passages: list[str]) -> Coverage:
    """``coverage`` with the quotes no passage holds, and the too short, dropped; covered
    needs one left."""
    held = [_flat(p) for p in passages]
    kept = [q.strip() for q in coverage.evidence if _long(q) and any(_flat(q) in p for p in held)]
    kept = list(dict.fromkeys(kept))
    return Coverage(covered=coverage.covered and bool(kept), evidence=kept, reason=coverage.reason)


def _flat(text: str) -> str:
    return " ".join(text.split())


def _long(quote: str) -> bool:
    words = quote.split()
    return (
        len(words) >= COVERAGE_MIN_QUOTE_WORDS or len(" ".join(words)) >= COVERAGE_MIN_QUOTE_CHARS
    )
