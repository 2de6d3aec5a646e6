"""Estimated LLM cost per call, from a price table kept in config-like form.

Prices are US dollars per 1 million tokens (input, output), as published by
OpenAI for the standard tier at the time of writing; edit the table when
prices change. A model is matched exactly, then by the longest table key that
prefixes it (``gpt-4o-2024-08-06`` costs like ``gpt-4o``). Azure deployment
names are free-form: name a deployment after its model to get a cost, or the
call is counted with cost 0 (tokens are still counted) and a warning is
logged once per model. Local servers (Ollama, vLLM) cost 0 the same way.
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)

# model name -> (USD per 1M input tokens, USD per 1M output tokens)
PRICES_PER_MILLION: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
    "gpt-35-turbo": (0.50, 1.50),
    "gpt-3.5-turbo": (0.50, 1.50),
    # embeddings (reranking, hybrid search): input tokens only
    "text-embedding-3-small": (0.02, 0.0),
    "text-embedding-3-large": (0.13, 0.0),
    "text-embedding-ada-002": (0.10, 0.0),
}

_warned: set[str] = set()


def price_for(model: str) -> tuple[float, float] | None:
    """The (input, output) price per 1M tokens, or ``None`` for an unknown model."""
    key = model.strip().lower()
    if key in PRICES_PER_MILLION:
        return PRICES_PER_MILLION[key]
    prefixes = [name for name in PRICES_PER_MILLION if key.startswith(name)]
    if not prefixes:
        return None
    return PRICES_PER_MILLION[max(prefixes, key=len)]


def cost_of(model: str, prompt_tokens: int, completion_tokens: int) -> float:
    """Estimated USD cost of one call; 0.0 (with a one-time warning) for unknown models."""
    price = price_for(model)
    if price is None:
        if model not in _warned:
            _warned.add(model)
            log.warning("no price known for model %r: its calls are counted with cost 0", model)
        return 0.0
    per_input, per_output = price
    return round((prompt_tokens * per_input + completion_tokens * per_output) / 1_000_000, 8)
