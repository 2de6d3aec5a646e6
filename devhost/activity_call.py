"""One activity invocation as the worker makes it, wherever it runs.

The engine's thread pool calls :func:`call_activity` in the host process;
with ``FUNCTIONS_WORKER_PROCESS_COUNT`` > 1 a worker process
(``devhost.worker_processes``) calls the same function on the same JSON. Only
text crosses: the input JSON the orchestrator scheduled and, back, either the
output JSON the SDK's encoder produced or the failure's reason and traceback,
so a result is the same whichever side ran it.
"""

from __future__ import annotations

import asyncio
import inspect
import traceback
from dataclasses import dataclass

from devhost.bindings import activity_input, activity_output
from devhost.registry import Registry


@dataclass(frozen=True)
class ActivityOutcome:
    """What the worker reports for one activity: ``output`` JSON, or ``reason`` + ``details``."""

    output: str | None = None
    reason: str | None = None
    details: str = ""

    @property
    def failed(self) -> bool:
        return self.reason is not None


def call_activity(registry: Registry, name: str | None, input_json: str | None) -> ActivityOutcome:
    """Run activity ``name`` on ``input_json`` through the SDK's converters on both sides."""
    entry = registry.activities.get(name or "")
    try:
        if entry is None:
            raise LookupError(f"activity {name!r} is not registered")
        fn, param = entry
        result = fn(**{param: activity_input(input_json)})
        if inspect.isawaitable(result):
            result = asyncio.run(result)
        return ActivityOutcome(output=activity_output(result))
    except Exception as exc:
        reason = f"{type(exc).__name__}: {exc}"
        return ActivityOutcome(reason=reason, details=traceback.format_exc())
