"""`search` and `deep_search` modes: the search flow (``search_flow.py``) with their tuning.

`search`: SPEED_MAX_ITERATIONS search rounds, a 400-600 word answer.
`deep_search`: BALANCED_MAX_ITERATIONS rounds, 800-1200 words.

Each mode runs the flow and finishes its session. A deep research runs
`deep_search` as its first phase too, as a sub-orchestration
(``StartInput.as_phase``): the parent owns that session, so the phase hands
its answer, usage and warnings back instead of finishing anything.
"""

from __future__ import annotations

import azure.durable_functions as df

from orchestrators import phase_ledger
from orchestrators.common import error_text, finish
from orchestrators.search_flow import search_flow
from shared.core.session_models import Progress, SessionStatus, StartInput, Usage

bp = df.Blueprint()

SEARCH_WORDS = (400, 600)
DEEP_SEARCH_WORDS = (800, 1200)
MODE_ANSWER = "answer"  # the answer's name in the session folder (answer.md, answer.json)
PHASE_ANSWER = "deep_search"  # a deep research keeps it beside its report (deep_search.md)


@bp.orchestration_trigger(context_name="context")
def search_orchestrator(context: df.DurableOrchestrationContext):
    inp = StartInput.model_validate(context.get_input())
    return (yield from _answer_mode(context, inp, inp.caps.search_iterations, SEARCH_WORDS))


@bp.orchestration_trigger(context_name="context")
def deep_search_orchestrator(context: df.DurableOrchestrationContext):
    inp = StartInput.model_validate(context.get_input())
    if inp.as_phase:
        return (yield from _deep_research_phase(context, inp))
    iterations = inp.caps.deep_search_iterations
    return (yield from _answer_mode(context, inp, iterations, DEEP_SEARCH_WORDS))


def _answer_mode(
    context: df.DurableOrchestrationContext,
    inp: StartInput,
    iterations: int,
    words: tuple[int, int],
):
    """The flow, then the session finished: completed with the answer, or failed."""
    progress = Progress(phase="planning")
    phase_ledger.enter(context, inp.session_id, "planning", Usage())
    try:
        answer, usage = yield from search_flow(
            context, inp, iterations, words, progress, MODE_ANSWER
        )
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


def _deep_research_phase(context: df.DurableOrchestrationContext, inp: StartInput):
    """The flow at deep-search depth; the result goes back to the deep research."""
    progress = Progress(phase="deep_search")
    # its activities join the parent's deep_search phase span (entered once, first)
    phase_ledger.enter(context, inp.session_id, "deep_search", Usage())
    iterations = inp.caps.deep_search_iterations
    answer, usage = yield from search_flow(
        context, inp, iterations, DEEP_SEARCH_WORDS, progress, PHASE_ANSWER
    )
    return {
        "answer": answer.model_dump(mode="json"),
        "usage": usage.model_dump(mode="json"),
        "warnings": [w.model_dump(mode="json") for w in progress.warnings],
    }
