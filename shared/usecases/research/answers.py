"""Answers of the chat and search modes: produced, stored, read back.

An answer is stored as ``{name}.json`` (the ``SynthesizedAnswer``) and
``{name}.md`` (rendered) in the session folder; only the reference travels
through Durable. Every answer ends with 3-5 follow-up questions: the offline
engine writes them with the answer, a model in a call of their own
(the strategic role, as the deep research report's). The answer's text streams
to the session's event stream while it is written (``answer_stream``).
"""

from __future__ import annotations

from shared.adapters.report.markdown import render_answer_markdown
from shared.core.payloads import AnswerOut, ChatIn
from shared.core.report_models import SynthesizedAnswer
from shared.core.source_models import PageSummary
from shared.ports import Services
from shared.usecases.research.answer_stream import streamed

SUMMARY_CHARS = 1500
MAX_FOLLOW_UP_QUESTIONS = 5


def save_answer(
    svc: Services, session_id: str, name: str, answer: SynthesizedAnswer, query: str, mode: str
) -> str:
    svc.memory.write(
        session_id, f"{name}.md", render_answer_markdown(answer, query, mode), "text/markdown"
    )
    return svc.memory.write(
        session_id, f"{name}.json", answer.model_dump_json(), "application/json"
    )


def load_summaries(svc: Services, refs: list[str]) -> list[PageSummary]:
    """The page summaries a search round wrote, by their references."""
    out = []
    for ref in refs:
        session_id, _, name = ref.partition("/")
        out.append(PageSummary.model_validate_json(svc.memory.read(session_id, name)))
    return out


def load_answer(svc: Services, ref: str) -> SynthesizedAnswer:
    session_id, _, name = ref.partition("/")
    return SynthesizedAnswer.model_validate_json(svc.memory.read(session_id, name))


def add_follow_up_questions(svc: Services, query: str, answer: SynthesizedAnswer) -> None:
    """Ask the reasoner for follow-up questions when the answer came without any."""
    if not answer.follow_up_questions and answer.answer.strip():
        answer.follow_up_questions = svc.reasoner.follow_up_questions(
            query, answer.answer, answer.language
        )
    answer.follow_up_questions = answer.follow_up_questions[:MAX_FOLLOW_UP_QUESTIONS]


def chat_answer(svc: Services, req: ChatIn) -> AnswerOut:
    """The chat mode's one step: an answer from the recent history, no web."""
    with streamed(svc.sessions, req.session_id, "answer") as stream:
        answer = svc.reasoner.answer(req.query, req.history, req.language)
    answer.language = req.language
    add_follow_up_questions(svc, req.query, answer)
    ref = save_answer(svc, req.session_id, "answer", answer, req.query, "chat")
    stream.settle(answer.answer)
    return AnswerOut(
        answer_ref=ref, source_count=len(answer.sources), summary=answer.answer[:SUMMARY_CHARS]
    )
