"""Search modes: whether the pages read so far answer the question, topic by topic."""

from __future__ import annotations

from shared.tools.prompts.framing import Messages, messages, preamble, query_block

COMPLETENESS = """{preamble}

We searched the web for the question below and read the page summaries that follow.
Judge whether they answer it completely, before an answer is written.

1. topics: {topics_rule} For each topic:
   - topic: its title;
   - evidence: one sentence copied verbatim from the summaries that proves the topic is
     covered, or empty when nothing does;
   - gaps: what is still missing on the topic, one short line each (none when covered);
   - score: 0.0-1.0, how completely the summaries cover the topic;
   - covered: true when the score is {threshold} or more and the evidence is a quote;
   - gap_query: one web search query that would fill the gaps (empty when covered).
2. needs: what kind of content the question needs: "definition" for "what is"
   questions, "steps" for "how to" questions, "code" for technical questions (code or
   configuration examples); none of them for other questions.
3. missing: the needs that nothing in the summaries provides.
4. navigation_only: true when the summaries are only site navigation, menus or tables
   of contents rather than content.
5. content_queries: one web search query per missing need.

{query}

{sources}"""

TOPICS_GIVEN = "judge exactly these topics, in this order:\n{topics}\n  "
TOPICS_NEW = (
    "name the 3-6 topics a complete answer must cover, after the question's shape: "
    '"What is X" -> definition, key features, use cases, examples; "How to X" -> '
    'prerequisites, steps, code examples, pitfalls; "Compare X vs Y" -> X, Y, differences, '
    "when to use each."
)


def build_completeness(
    query: str, topics: list[str], sources: str, threshold: float, language: str, today: str
) -> Messages:
    listed = "\n".join(f"   - {t}" for t in topics)
    text = COMPLETENESS.format(
        preamble=preamble(today, language),
        topics_rule=TOPICS_GIVEN.format(topics=listed).rstrip() if topics else TOPICS_NEW,
        threshold=threshold,
        query=query_block(query),
        sources=sources or "(nothing was read)",
    )
    return messages("You check whether research answers a question completely.", text)
