"""Per-activity token accounting without threading a meter through every call.

An activity opens ``metered()``; whatever calls the endpoint (the LLM
reasoner's chat completions, the embedding reranker) calls ``record_call(...)``
after each response; the activity returns ``meter.usage`` in its small result
so the orchestrator can sum usage deterministically from history and enforce
the session budget. A context variable keeps concurrent activities apart.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from shared.core.session_models import Usage
from shared.tools.llm_endpoint.pricing import cost_of


class UsageMeter:
    def __init__(self) -> None:
        self.usage = Usage()


_meter: ContextVar[UsageMeter | None] = ContextVar("usage_meter_obj", default=None)


@contextmanager
def metered() -> Iterator[UsageMeter]:
    meter = UsageMeter()
    token = _meter.set(meter)
    try:
        yield meter
    finally:
        _meter.reset(token)


def record_call(model: str, prompt_tokens: int, completion_tokens: int) -> float:
    """Add one call to ``model``, priced, to the current meter (no-op outside ``metered()``).

    Returns the call's cost, for the model call's span.
    """
    cost = cost_of(model, prompt_tokens, completion_tokens)  # warns once for an unknown model
    meter = _meter.get()
    if meter is not None:
        meter.usage = meter.usage + Usage(
            llm_calls=1,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost=cost,
        )
    return cost
