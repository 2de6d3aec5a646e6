"""History events in the JSON shape the Durable extension hands the Python SDK.

Field names follow ``azure.durable_functions.models.history.HistoryEvent``;
payloads (``Input``, ``Result``) are JSON text, as the extension sends them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import IntEnum
from typing import Any

# Keep exception text well under the 64 KB queue message limit (docs/architecture.md).
MAX_ERROR_CHARS = 8000


class EventType(IntEnum):
    EXECUTION_STARTED = 0
    EXECUTION_COMPLETED = 1
    EXECUTION_FAILED = 2
    EXECUTION_TERMINATED = 3
    TASK_SCHEDULED = 4
    TASK_COMPLETED = 5
    TASK_FAILED = 6
    SUB_ORCHESTRATION_INSTANCE_CREATED = 7
    SUB_ORCHESTRATION_INSTANCE_COMPLETED = 8
    SUB_ORCHESTRATION_INSTANCE_FAILED = 9
    TIMER_CREATED = 10
    TIMER_FIRED = 11
    ORCHESTRATOR_STARTED = 12
    ORCHESTRATOR_COMPLETED = 13
    EVENT_RAISED = 15
    CONTINUE_AS_NEW = 16


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def utcnow() -> datetime:
    return datetime.now(UTC)


def event(kind: EventType, event_id: int = -1, **fields: Any) -> dict[str, Any]:
    return {
        "EventType": int(kind),
        "EventId": event_id,
        "IsPlayed": False,
        "Timestamp": iso(utcnow()),
        **fields,
    }


def truncate(text: str) -> str:
    if len(text) <= MAX_ERROR_CHARS:
        return text
    return text[: MAX_ERROR_CHARS - 15] + "... [truncated]"


def task_completed(task_id: int, result_json: str) -> dict[str, Any]:
    return event(EventType.TASK_COMPLETED, TaskScheduledId=task_id, Result=result_json)


def task_failed(task_id: int, reason: str, details: str) -> dict[str, Any]:
    return event(
        EventType.TASK_FAILED,
        TaskScheduledId=task_id,
        Reason=truncate(reason),
        Details=truncate(details),
    )


def timer_fired(timer_id: int, fire_at: str) -> dict[str, Any]:
    return event(EventType.TIMER_FIRED, TimerId=timer_id, FireAt=fire_at)


def event_raised(name: str, input_json: str | None) -> dict[str, Any]:
    return event(EventType.EVENT_RAISED, Name=name, Input=input_json)


def sub_completed(task_id: int, result_json: str | None) -> dict[str, Any]:
    return event(
        EventType.SUB_ORCHESTRATION_INSTANCE_COMPLETED, TaskScheduledId=task_id, Result=result_json
    )


def sub_failed(task_id: int, reason: str, details: str) -> dict[str, Any]:
    return event(
        EventType.SUB_ORCHESTRATION_INSTANCE_FAILED,
        TaskScheduledId=task_id,
        Reason=truncate(reason),
        Details=truncate(details),
    )


def execution_started(name: str, input_json: str | None, parent: str | None) -> dict[str, Any]:
    return event(
        EventType.EXECUTION_STARTED,
        Name=name,
        Input=input_json,
        ParentInstance=parent,
        Version="",
    )
