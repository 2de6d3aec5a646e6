"""Asking a finished research: answer a reader's question from that session's evidence only."""

from __future__ import annotations

from shared.tools.prompts.framing import Messages, messages, preamble, query_block

ASK_SYSTEM = """You answer a reader's question about a finished research report.
{preamble}

Use only the numbered <source> passages: they are the research's own evidence, and
n is the source's number in the report's source list. Cite every claim with [n]
right after it, using only those numbers. Do not use what you know from elsewhere.
If the passages do not answer the question, set answered to false and say so plainly
in one or two sentences (in the reader's language), naming what the sources do cover
if that helps; never guess.
Return:
- answered: whether the passages answer the question;
- answer: the answer in Markdown, short (at most {max_words} words), with [n] citations."""


def build_ask(question: str, passages: str, language: str, today: str, max_words: int) -> Messages:
    """``passages`` is the evidence already formatted as numbered ``<source>`` blocks."""
    system = ASK_SYSTEM.format(preamble=preamble(today, language), max_words=max_words)
    return messages(system, f"{passages}\n\n{query_block(question)}")
