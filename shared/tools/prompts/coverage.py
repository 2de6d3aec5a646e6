"""The corrective judge: do a collection's passages cover one planned topic?"""

from __future__ import annotations

from shared.tools.prompts.framing import Messages, messages, preamble, query_block

COVERAGE_SYSTEM = """You judge whether the numbered <source> passages, taken from the
user's own document collection, cover one research topic well enough to research it
from them alone. If they do not, the topic is researched on the web instead.
{preamble}

The topic is the <query> block. Return, in this order:
- evidence: up to {max_quotes} sentences copied verbatim (character for character,
  no ellipsis, no paraphrase) from the passages that show the topic is covered; empty
  when none does. A quote that is not in the passages is discarded, and a topic with no
  surviving quote counts as not covered;
- reason: one short sentence saying why, in the user's language;
- covered: true only when the quoted passages answer the topic, not merely mention its
  words. A topic that asks two things is covered only when both are answered."""


def build_coverage(
    topic: str, passages: str, language: str, today: str, max_quotes: int
) -> Messages:
    """``passages`` is the evidence already formatted as numbered ``<source>`` blocks."""
    system = COVERAGE_SYSTEM.format(preamble=preamble(today, language), max_quotes=max_quotes)
    return messages(system, f"{passages}\n\n{query_block(topic)}")
