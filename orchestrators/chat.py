"""Chat mode: one LLM answer with the chat's recent history, no web."""

from __future__ import annotations

import azure.durable_functions as df

from orchestrators.common import error_text, finish, step
from shared.core import names
from shared.core.payloads import AnswerOut, ChatIn
from shared.core.session_models import Progress, SessionStatus, StartInput, Usage

bp = df.Blueprint()


@bp.orchestration_trigger(context_name="context")
def chat_orchestrator(context: df.DurableOrchestrationContext):
    inp = StartInput.model_validate(context.get_input())
    progress = Progress(phase="answering")
    try:
        request = ChatIn(
            session_id=inp.session_id, query=inp.query, language=inp.language, history=inp.history
        )
        answer = AnswerOut.model_validate((yield from step(context, names.CHAT_ANSWER, request)))
    except Exception as exc:
        spent = getattr(exc, "usage", None) or Usage()  # a StepFailed keeps what was spent
        return (
            yield from finish(
                context, inp, SessionStatus.failed, spent, progress, error=error_text(exc)
            )
        )
    return (
        yield from finish(
            context,
            inp,
            SessionStatus.completed,
            answer.usage,
            progress,
            answer_ref=answer.answer_ref,
        )
    )
