"""Answers of the chat and search modes: produced, stored, read back.

An answer is stored as ``{name}.json`` (the ``SynthesizedAnswer``) and
``{name}.md`` (rendered) in the session folder; only the reference travels
through Durable.
"""

from __future__ import annotations

from shared.adapters.report.markdown import render_answer_markdown
from shared.core.payloads import AnswerOut, ChatIn
from shared.core.report_models import SynthesizedAnswer
from shared.ports import Services

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


def chat_answer(svc: Services, req: ChatIn) -> AnswerOut:
    """The chat mode's one step: an answer from the recent history, no web."""
    answer = svc.reasoner.answer(req.query, req.history, req.language)
    answer.language = req.language
    ref = save_answer(svc, req.session_id, "answer", answer, req.query, "chat")
    return AnswerOut(
        answer_ref=ref, source_count=len(answer.sources), summary=answer.answer[:SUMMARY_CHARS]
    )
