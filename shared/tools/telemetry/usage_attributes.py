"""A usage as span attributes of the activity, phase and session spans.

Our own names: the GenAI `gen_ai.usage.*` attributes stay on the model-call spans, so a
view that sums those never counts a call twice.
"""

from __future__ import annotations

from shared.core.session_models import Usage
from shared.tools.telemetry.genai import COST_ATTRIBUTE


def usage_attributes(usage: Usage) -> dict[str, int | float]:
    return {
        "deep_research.llm_calls": usage.llm_calls,
        "deep_research.input_tokens": usage.prompt_tokens,
        "deep_research.output_tokens": usage.completion_tokens,
        COST_ATTRIBUTE: usage.cost,
    }
