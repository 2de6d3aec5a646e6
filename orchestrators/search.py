"""`search` and `deep_search` modes: the search flow with their own tuning.

`search`: SPEED_MAX_ITERATIONS (2) iterations, 400-600 words.
`deep_search`: BALANCED_MAX_ITERATIONS (6) iterations, 800-1200 words; also
run as the first phase of a deep research (``as_phase``), where it returns its
answer to the parent instead of completing the session.
"""

from __future__ import annotations

import azure.durable_functions as df

from orchestrators.common import error_text, finish
from orchestrators.search_flow import search_flow
from shared.models import Progress, SessionStatus, StartInput, Usage

bp = df.Blueprint()

SEARCH_WORDS = (400, 600)
DEEP_SEARCH_WORDS = (800, 1200)


@bp.orchestration_trigger(context_name="context")
def search_orchestrator(context: df.DurableOrchestrationContext):
    inp = StartInput.model_validate(context.get_input())
    return (yield from _run(context, inp, inp.caps.search_iterations, SEARCH_WORDS))


@bp.orchestration_trigger(context_name="context")
def deep_search_orchestrator(context: df.DurableOrchestrationContext):
    inp = StartInput.model_validate(context.get_input())
    if inp.as_phase:
        progress = Progress(phase="deep_search")
        answer, usage = yield from search_flow(
            context, inp, inp.caps.deep_search_iterations, DEEP_SEARCH_WORDS, progress
        )
        return {
            "answer": answer.model_dump(mode="json"),
            "usage": usage.model_dump(mode="json"),
            "warnings": [w.model_dump(mode="json") for w in progress.warnings],
        }
    return (yield from _run(context, inp, inp.caps.deep_search_iterations, DEEP_SEARCH_WORDS))


def _run(context, inp: StartInput, iterations: int, words: tuple[int, int]):
    progress = Progress(phase="planning")
    try:
        answer, usage = yield from search_flow(context, inp, iterations, words, progress)
    except Exception as exc:
        spent = getattr(exc, "usage", None) or Usage()  # a StepFailed keeps what was spent
        return (
            yield from finish(
                context, inp, SessionStatus.failed, spent, progress, error=error_text(exc)
            )
        )
    return (
        yield from finish(
            context, inp, SessionStatus.completed, usage, progress, answer_ref=answer.answer_ref
        )
    )
