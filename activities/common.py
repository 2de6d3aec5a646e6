"""What every activity does around its one call: validate, meter usage, dump.

Errors, by kind (``shared/core/errors.py``):
- ``TransientError`` and anything unexpected raise: the orchestrator's
  ``call_activity_with_retry`` runs the activity again (ACTIVITY_RETRY_*).
- every other ``ResearchError`` (permanent, configuration, not found, ...)
  returns a :class:`~shared.core.payloads.StepFailure` envelope: a retry would fail
  the same way, and the envelope keeps the usage spent before the failure.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel

from shared.bootstrap import services
from shared.core.errors import ConfigurationError, ResearchError, TransientError
from shared.core.payloads import FAILURE_KEY, StepFailure
from shared.core.phase_models import TRACE_KEY, TraceTag
from shared.ports import Services
from shared.tools.llm_endpoint import slow_calls
from shared.tools.llm_endpoint.usage import metered
from shared.tools.telemetry import tracing
from shared.tools.telemetry.usage_attributes import usage_attributes
from shared.usecases.sessions import show_running_call

In = TypeVar("In", bound=BaseModel)

MAX_ERROR_CHARS = 300
log = logging.getLogger(__name__)


def run_step(payload: dict, model: type[In], step: Callable[[Services, In], Any]) -> dict:
    """Decode ``payload`` into ``model``, run ``step`` metered, return JSON-safe output.

    Usage recorded by the reasoner during the step is put into the result's
    ``usage`` field when the result model has one.
    """
    payload = dict(payload)
    tag = payload.pop(TRACE_KEY, None)
    request = model.model_validate(payload)
    svc = services()
    with _traced(step, request, tag) as span, metered() as meter, _slow_calls_shown(svc, request):
        try:
            result = step(svc, request)
        except TransientError:
            raise
        except ResearchError as exc:
            kind = "configuration" if isinstance(exc, ConfigurationError) else "permanent"
            error = f"{type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS]
            failure = StepFailure(kind=kind, error=error, usage=meter.usage)
            tracing.failed(span, type(exc).__name__)
            return {FAILURE_KEY: failure.model_dump(mode="json")}
        finally:
            tracing.set_attributes(span, usage_attributes(meter.usage))
        used = meter.usage
        log.debug("step %s: %d model calls, $%.4f", _name(step), used.llm_calls, used.cost)
    if isinstance(result, BaseModel):
        if "usage" in type(result).model_fields:
            result = result.model_copy(update={"usage": meter.usage})
        return result.model_dump(mode="json")
    return result if isinstance(result, dict) else {"ok": True}


def _session_of(request: BaseModel) -> str | None:
    context = getattr(request, "context", None)
    session_id = getattr(request, "session_id", None) or getattr(context, "session_id", None)
    return session_id if isinstance(session_id, str) else None


def _traced(step: Callable, request: BaseModel, tag: dict | None) -> AbstractContextManager:
    """The activity's span under its phase (``TraceTag`` from the orchestrator) or session."""
    if tag is not None:
        known = TraceTag.model_validate(tag)
        return tracing.activity_span(known.activity, known.session_id, known.phase, known.seq)
    return tracing.activity_span(_name(step), _session_of(request), None, 1)


def _name(step: Callable) -> str:
    return getattr(step, "__name__", "step")


def _slow_calls_shown(svc: Services, request: BaseModel) -> AbstractContextManager[None]:
    """Show this step's slow model calls in its session's status (``slow_calls``)."""
    session_id = _session_of(request)
    if session_id is None or svc.settings.effective_reasoner != "llm":
        return nullcontext()

    def report(model: str, started_at: datetime) -> Callable[[], None]:
        return show_running_call(svc, session_id, model, started_at)

    return slow_calls.watching(svc.settings.llm_slow_call_seconds, report)
