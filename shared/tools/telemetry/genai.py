"""A span per model call with the GenAI semantic conventions (and the call's cost, ours).

Kept apart from the LLM client so a client that streams and one that does not
open the same span: ``with model_call(system, model) as call: ...; call.record(...)``.
No prompt or reply text is ever put on the span.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry.trace import Span, SpanKind

from shared.core.config import Settings
from shared.tools.telemetry import tracing

COST_ATTRIBUTE = "deep_research.cost_usd"  # our own: the price table's figure for the call


class ModelCall:
    def __init__(self, current: Span | None) -> None:
        self._span = current

    def record(self, input_tokens: int, output_tokens: int, cost: float) -> None:
        tracing.set_attributes(
            self._span,
            {
                "gen_ai.usage.input_tokens": input_tokens,
                "gen_ai.usage.output_tokens": output_tokens,
                COST_ATTRIBUTE: cost,
            },
        )


def system_of(settings: Settings) -> str:
    """``gen_ai.system``: Azure OpenAI when that endpoint is configured, else the OpenAI API."""
    return "az.ai.openai" if settings.azure_openai_endpoint else "openai"


@contextmanager
def model_call(system: str, model: str, operation: str = "chat") -> Iterator[ModelCall]:
    """``system``: ``openai`` or ``az.ai.openai``; ``operation``: ``chat`` or ``embeddings``."""
    if not tracing.enabled():
        yield ModelCall(None)
        return
    attributes = {
        "gen_ai.system": system,
        "gen_ai.operation.name": operation,
        "gen_ai.request.model": model,
    }
    with tracing.tracer().start_as_current_span(
        f"{operation} {model}", kind=SpanKind.CLIENT, attributes=attributes
    ) as current:
        yield ModelCall(current)
