"""Search modes: query reformulation, query variations, page summaries, the cited answer."""

from __future__ import annotations

from shared.tools.prompts.framing import (
    SOURCE_POLICY_RULES,
    Messages,
    messages,
    preamble,
    query_block,
)

REFORMULATE_SYSTEM = """You turn the user's latest message into one web search query.
{preamble}

Resolve pronouns and references ("it", "that one", "the second") from the conversation
below, so the query stands alone. Keep it to 1-2 sentences. Reply with the query only:
no quotes, no explanation.

Conversation so far:
{history}"""

SEARCH_QUERIES = """{preamble}

Write {n} web search queries for the question below: the original question as a query,
a rephrasing, a broader query and a more specific one (in that order, stop at {n}).
Write the queries in the question's language; add an English variant only when the
topic is mostly documented in English.

{query}"""

FOLLOW_UP_QUERIES = """{preamble}

We searched for the question below and read the page summaries that follow. Write {n}
new search queries that target what is still missing, contradictory or too shallow.
Do not repeat the question or queries that these summaries already answer.

{query}

{sources}"""

SUMMARIZE_PAGE = """{preamble}

Summarize the page below for the question. Keep only what bears on the question:
facts, figures, dates, definitions, named claims. If the page is irrelevant, say so in
one sentence. Return:
- summary: 3-8 sentences;
- relevant_sentences: up to 5 sentences copied verbatim from the page.

{query}

{sources}"""

SYNTHESIZE = """{preamble}

Answer the question from the numbered sources below, in {min_words}-{max_words} words.
Cite every factual statement with the source number in square brackets, like [1] or
[2][3], using only the numbers given below. Never invent a source or a number. If the
sources disagree, say so; if they do not answer something, say that too.
Each source carries its tier (1 official/primary ... 5 forum/social). {policy}
Return:
- reasoning: two or three sentences on how the sources fit together;
- answer: the answer in Markdown with [n] citations;
- key_points: 3-5 short points, each with its citation.

{query}

{sources}"""

FOLLOW_UP_QUESTIONS = """{preamble}

Here is a question and the answer it got. Suggest 3-5 follow-up questions the user is
likely to ask next: concrete, not answered by the text, one sentence each.

{query}

<answer>
{text}
</answer>"""


def build_reformulate(query: str, history: str, language: str, today: str) -> Messages:
    """``history`` is the conversation rendered as ``role: text`` lines."""
    system = REFORMULATE_SYSTEM.format(
        preamble=preamble(today, language), history=history or "(none)"
    )
    return messages(system, query)


def build_search_queries(query: str, n: int, language: str, today: str) -> Messages:
    text = SEARCH_QUERIES.format(preamble=preamble(today, language), n=n, query=query_block(query))
    return messages("You write web search queries.", text)


def build_follow_up_queries(
    query: str, sources: str, n: int, language: str, today: str
) -> Messages:
    text = FOLLOW_UP_QUERIES.format(
        preamble=preamble(today, language), n=n, query=query_block(query), sources=sources
    )
    return messages("You write web search queries.", text)


def build_summarize_page(query: str, source: str, language: str, today: str) -> Messages:
    text = SUMMARIZE_PAGE.format(
        preamble=preamble(today, language), query=query_block(query), sources=source
    )
    return messages("You summarize web pages for a research question.", text)


def build_synthesize(
    query: str,
    sources: str,
    language: str,
    today: str,
    min_words: int,
    max_words: int,
    policy: str = "discovery",
    period: str = "",
) -> Messages:
    """``period`` is the time-range line (``framing.time_range_line``) or empty."""
    text = SYNTHESIZE.format(
        preamble=preamble(today, language),
        policy="\n\n".join(filter(None, [SOURCE_POLICY_RULES[policy], period])),
        query=query_block(query),
        sources=sources or "(no sources)",
        min_words=min_words,
        max_words=max_words,
    )
    return messages("You answer questions from web sources, citing them.", text)


def build_follow_up_questions(query: str, text: str, language: str, today: str) -> Messages:
    body = FOLLOW_UP_QUESTIONS.format(
        preamble=preamble(today, language), query=query_block(query), text=text
    )
    return messages("You suggest follow-up questions.", body)
