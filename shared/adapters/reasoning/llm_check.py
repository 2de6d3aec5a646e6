"""Is the configured model endpoint usable? One tiny structured call per model role.

``GET /api/health?check=llm`` asks this before a team trusts a deployment with
a deep research: each role's model (``FAST_MODEL``, ``STRATEGIC_MODEL``,
``LONG_CONTEXT_MODEL``, ``CHAT_MODEL``) is called once, through the same
client and structured-output path the research uses, with no retries, so a
wrong key (401), a missing deployment (404) or an unreachable server is named
at once. Roles that share a model share one call. The reply says which
structured-output mode the endpoint settled on (``LLM_STRUCTURED_OUTPUT=auto``).
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel

from shared.adapters.reasoning import structured_mode
from shared.adapters.reasoning.llm_client import LLMClient
from shared.core.config import Settings
from shared.core.errors import ResearchError
from shared.tools.llm_endpoint import model_limits

PROMPT = [{"role": "user", "content": "This is a health check. Reply with ok set to true."}]
CHECK_TIMEOUT_SECONDS = 30.0


class HealthPong(BaseModel):
    ok: bool


def check_models(settings: Settings) -> list[dict[str, Any]]:
    """One entry per role: model, ok, latency, the structured mode in use, the error if any."""
    quick = settings.model_copy(
        update={
            "llm_max_retries": 0,
            "max_structured_output_retries": 0,
            "llm_timeout_seconds": min(settings.llm_timeout_seconds, CHECK_TIMEOUT_SECONDS),
            # a role's own (longer) timeout would otherwise win over the check's
            **{f"llm_timeout_seconds_{role}": None for role in model_limits.role_models(settings)},
        }
    )
    client = LLMClient(quick)
    roles = model_limits.role_models(settings)
    checked: dict[str, dict[str, Any]] = {}
    for model in dict.fromkeys(roles.values()):
        checked[model] = _check(client, settings, model)
    return [{"role": role, "model": model, **checked[model]} for role, model in roles.items()]


def _check(client: LLMClient, settings: Settings, model: str) -> dict[str, Any]:
    started = time.perf_counter()
    error = None
    try:
        client.complete_structured(HealthPong, PROMPT, model=model, temperature=0, max_tokens=50)
    except ResearchError as exc:
        error = f"{type(exc).__name__}: {exc}"
    mode = structured_mode.first_mode(settings.llm_structured_output, client.endpoint, model)
    return {
        "ok": error is None,
        "latency_ms": round((time.perf_counter() - started) * 1000),
        "structured_output": mode,
        "error": error,
    }
