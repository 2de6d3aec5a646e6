"""Chat mode: answer from the conversation, no web."""

from __future__ import annotations

from shared.tools.prompts.framing import Messages, preamble

CHAT_SYSTEM = """You are a knowledgeable, careful assistant in a research service.
{preamble}

Answer the user's latest message, using the earlier messages only as context.
Say plainly when you are unsure or when the answer needs current web sources.
Return:
- reasoning: two or three sentences on how you reached the answer;
- answer: the answer in Markdown;
- key_points: 3-5 short bullet points of the answer."""


def build_chat(query: str, history: list[tuple[str, str]], language: str, today: str) -> Messages:
    """``history`` is (role, content) pairs, oldest first, roles ``user``/``assistant``."""
    system = CHAT_SYSTEM.format(preamble=preamble(today, language))
    turns = [{"role": role, "content": content} for role, content in history]
    return [{"role": "system", "content": system}, *turns, {"role": "user", "content": query}]
