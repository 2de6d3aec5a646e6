"""Answers of the chat and search modes: produced, stored, read back.

An answer is stored as ``{name}.json`` (the ``SynthesizedAnswer``) and
``{name}.md`` (rendered) in the session folder; only the reference travels
through Durable.
"""

from __future__ import annotations

from shared.models import ChatMessage, SynthesizedAnswer
from shared.ports import Services
from shared.report.markdown import render_answer_markdown

SUMMARY_CHARS = 1500


def save_answer(
    svc: Services, session_id: str, name: str, answer: SynthesizedAnswer, query: str, mode: str
) -> str:
    svc.memory.write(
        session_id, f"{name}.md", render_answer_markdown(answer, query, mode), "text/markdown"
    )
    return svc.memory.write(
        session_id, f"{name}.json", answer.model_dump_json(), "application/json"
    )


def load_answer(svc: Services, ref: str) -> SynthesizedAnswer:
    session_id, _, name = ref.partition("/")
    return SynthesizedAnswer.model_validate_json(svc.memory.read(session_id, name))


def chat_answer(
    svc: Services, session_id: str, query: str, language: str, history: list[ChatMessage]
) -> tuple[str, SynthesizedAnswer]:
    answer = svc.reasoner.answer(query, history, language)
    answer.language = language
    return save_answer(svc, session_id, "answer", answer, query, "chat"), answer
