"""Trigger values as the Python worker hands them to functions, through the SDK's converters.

The Functions host sends the worker a typed datum per binding; the worker
turns it into a Python value with the converter registered for the binding
type (``azure.functions``). devhost calls the same converters instead of
re-implementing them, so an activity sees exactly what it would see in Azure:

- activity input is decoded with ``ActivityTriggerConverter.decode``
  (``df_loads``: custom objects with ``to_json``/``from_json`` come back as
  objects, text that is not JSON is passed through as a string), and its
  return value is encoded with ``ActivityTriggerConverter.encode``
  (``df_dumps``: custom objects are wrapped in the SDK's envelope, anything
  else that JSON cannot hold fails the activity);
- a timer trigger gets a ``func.TimerRequest`` from ``TimerRequestConverter``
  built from the JSON the host's timer listener sends;
- HTTP and timer functions run as the worker runs them: ``async def`` on the
  event loop, plain ``def`` in a thread (``call_function``).
"""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import Any

import azure.functions as func
from azure.functions import meta
from azure.functions.durable_functions import ActivityTriggerConverter
from azure.functions.timer import TimerRequestConverter


def activity_input(input_json: str | None) -> Any:
    """The value an activity function receives for the host's ``input_json``."""
    if input_json is None:
        return None
    return ActivityTriggerConverter.decode(meta.Datum(input_json, "json"), trigger_metadata=None)


def activity_output(result: Any) -> str:
    """The JSON text the worker returns to the host for an activity's ``result``.

    Raises ``ValueError`` for a value the SDK cannot serialise (the worker
    reports that as the activity's failure).
    """
    return ActivityTriggerConverter.encode(result, expected_type=None).value


def startup_timer_request() -> func.TimerRequest:
    """What a timer function receives when the host runs it at start-up (not past due)."""
    info = {"Schedule": {"AdjustForDST": True}, "ScheduleStatus": None, "IsPastDue": False}
    datum = meta.Datum(json.dumps(info), "json")
    return TimerRequestConverter.decode(datum, trigger_metadata=None)


async def call_function(fn: Any, kwargs: dict[str, Any]) -> Any:
    """Call a function as the worker does: ``async def`` on this loop, ``def`` in a thread."""
    if inspect.iscoroutinefunction(fn):
        return await fn(**kwargs)
    result = await asyncio.to_thread(fn, **kwargs)
    return await result if inspect.isawaitable(result) else result
