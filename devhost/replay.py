"""One orchestrator episode: replay the history through the SDK, read back its actions.

The orchestrator function registered in ``function_app`` is the SDK's own
``Orchestrator.create(fn)`` handle; we feed it the JSON context the Durable
extension would send (history with ``IsPlayed`` flags, input, replay schema V2)
and get the SDK's ``OrchestratorState`` JSON back. The extension's job, done
here, is to turn *new* actions into work and to give each one the task id the
SDK expects:

- the SDK numbers every scheduled atomic action in the order it is yielded
  (``_sequence_number``), external-event waits excepted; with replay schema V2
  the action list is append-only and flattening it depth-first reproduces
  that order, so the k-th new action gets the next number;
- ``call_activity_with_retry`` is retried by the host: on a failure the SDK
  allocates one id for the back-off timer, and when that timer fires one id
  for the next attempt (or gives up after the last attempt's timer). We feed
  one new event per episode, so those ids are taken before user code runs
  and allocates its own, exactly as in the SDK.

The ``book`` dict (persisted with the instance) carries this bookkeeping.
Non-determinism is detected the way DTFx does: a replay whose earlier actions
differ from the recorded ones fails the instance.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from devhost.history import EventType, event, iso, truncate

CALL_ACTIVITY, CALL_ACTIVITY_RETRY, CALL_SUB, CALL_SUB_RETRY, CONTINUE_AS_NEW = 0, 1, 2, 3, 4
CREATE_TIMER, WAIT_EVENT, WHEN_ANY, WHEN_ALL = 5, 6, 11, 12
REPLAY_SCHEMA_V2 = 1
_OOP_MARKER = "$OutOfProcData$:"


@dataclass
class Outcome:
    new_history: list[dict[str, Any]] = field(default_factory=list)
    activities: list[tuple[int, str, str | None]] = field(default_factory=list)
    timers: list[tuple[int, datetime]] = field(default_factory=list)
    cancelled_timers: list[int] = field(default_factory=list)
    children: list[tuple[int, str, str, str | None]] = field(default_factory=list)
    custom_status: Any = None
    done: bool = False
    output_json: str | None = None
    error: str | None = None
    continue_as_new: str | None = None
    continued: bool = False


def new_book() -> dict[str, Any]:
    return {"seq": 0, "seen": [], "timers": {}, "retry": {}, "retry_timers": {}}


def run_episode(
    handler: Any,
    instance_id: str,
    parent_id: str | None,
    input_json: str | None,
    history: list[dict[str, Any]],
    new_events: list[dict[str, Any]],
    book: dict[str, Any],
    now: datetime,
) -> Outcome:
    """Run one episode over ``new_events``; mutates ``book``; returns what the host must do.

    Only the first event of a batch may allocate task ids (see ``allocates_ids``).
    """
    out = Outcome()
    for new_event in new_events:
        _before_user_code(new_event, book, now, out)
    started = event(EventType.ORCHESTRATOR_STARTED, Timestamp=iso(now))
    played = [dict(e, IsPlayed=True) for e in history]
    context = {
        "history": [*played, started, *new_events],
        "instanceId": instance_id,
        "isReplaying": bool(played),
        "parentInstanceId": parent_id,
        "input": input_json,
        "upperSchemaVersion": REPLAY_SCHEMA_V2,
    }
    out.new_history += [started, *new_events]
    state = _invoke(handler, json.dumps(context), out)
    if state is not None:
        _read_state(state, book, out)
    return out


def _read_state(state: dict[str, Any], book: dict[str, Any], out: Outcome) -> None:
    """Turn the SDK's ``OrchestratorState`` into new work, cancellations and the result."""
    out.custom_status = state.get("customStatus")
    actions = _flatten(state.get("actions") or [])
    if not _check_determinism(actions, book, out):
        return
    _schedule_new(actions, book, out)
    _cancelled(actions, book, out)
    out.new_history.append(event(EventType.ORCHESTRATOR_COMPLETED))
    if state.get("isDone"):
        out.done = True
        if out.continued:
            return
        if state.get("error"):
            out.error = truncate(str(state["error"]))
        else:
            out.output_json = json.dumps(state.get("output"))


def _invoke(handler: Any, context_json: str, out: Outcome) -> dict[str, Any] | None:
    try:
        return json.loads(handler(context_json))
    except Exception as exc:  # the orchestrator (or the SDK) raised: the instance fails
        message = str(exc)
        if _OOP_MARKER in message:
            head, _, tail = message.partition(_OOP_MARKER)
            try:
                state = json.loads(tail)
                out.custom_status = state.get("customStatus")
                message = state.get("error") or head.strip()
            except json.JSONDecodeError:
                message = head.strip()
        out.done, out.error = True, truncate(message or type(exc).__name__)
        return None


def allocates_ids(ev: dict[str, Any], book: dict[str, Any]) -> bool:
    """Whether the SDK takes task ids while processing ``ev`` (a retry's timer or attempt).

    Such an event must come first in an episode: the SDK takes those ids before
    user code resumes, so a batch [completion, retry failure] would number
    differently from what the host assumes.
    """
    kind = ev["EventType"]
    task_id = str(ev.get("TaskScheduledId", ev.get("TimerId")))
    return (kind == EventType.TASK_FAILED and task_id in book["retry"]) or (
        kind == EventType.TIMER_FIRED and task_id in book["retry_timers"]
    )


def _flatten(actions: list[Any]) -> list[dict[str, Any]]:
    flat: list[dict[str, Any]] = []

    def walk(item: Any) -> None:
        if isinstance(item, list):
            for child in item:
                walk(child)
        elif item.get("actionType") in (WHEN_ANY, WHEN_ALL):
            for child in item.get("compoundActions", []):
                walk(child)
        else:
            flat.append(item)

    walk(actions)
    return flat


def _signature(action: dict[str, Any]) -> list[Any]:
    return [action.get("actionType"), action.get("functionName") or action.get("externalEventName")]


def _check_determinism(actions: list[dict], book: dict[str, Any], out: Outcome) -> bool:
    seen = book["seen"]
    replayed = [_signature(a) for a in actions[: len(seen)]]
    if replayed != seen:
        out.done = True
        out.error = (
            "Non-deterministic orchestration detected: the replay scheduled "
            f"{replayed[-3:]} where the history has {seen[-3:]}"
        )
        return False
    return True


def _allocate(book: dict[str, Any]) -> int:
    task_id = book["seq"]
    book["seq"] += 1
    return task_id


def _before_user_code(
    ev: dict[str, Any], book: dict[str, Any], now: datetime, out: Outcome
) -> None:
    kind = ev["EventType"]
    task_id = str(ev.get("TaskScheduledId", ev.get("TimerId")))
    if kind == EventType.TASK_FAILED and task_id in book["retry"]:
        chain = book["retry"].pop(task_id)
        timer_id = _allocate(book)
        book["retry_timers"][str(timer_id)] = chain
        out.timers.append((timer_id, now + timedelta(milliseconds=chain["interval_ms"])))
    elif kind == EventType.TASK_COMPLETED:
        book["retry"].pop(task_id, None)
    elif kind == EventType.TIMER_FIRED and task_id in book["retry_timers"]:
        chain = book["retry_timers"].pop(task_id)
        if chain["attempt"] < chain["max_attempts"]:
            next_id = _allocate(book)
            chain["attempt"] += 1
            book["retry"][str(next_id)] = chain
            out.activities.append((next_id, chain["name"], chain["input"]))
    elif kind == EventType.TIMER_FIRED:
        book["timers"] = {k: v for k, v in book["timers"].items() if str(v) != task_id}


def _schedule_new(actions: list[dict], book: dict[str, Any], out: Outcome) -> None:
    """Give each action the replay has not seen before its task id and record its work."""
    for index in range(len(book["seen"]), len(actions)):
        action = actions[index]
        kind = action.get("actionType")
        book["seen"].append(_signature(action))
        if kind == WAIT_EVENT:
            continue
        task_id = _allocate(book)
        if kind in (CALL_ACTIVITY, CALL_ACTIVITY_RETRY):
            _schedule_activity(action, task_id, book, out)
        elif kind == CREATE_TIMER:
            _schedule_timer(action, task_id, index, book, out)
        elif kind in (CALL_SUB, CALL_SUB_RETRY):
            _schedule_child(action, task_id, book, out)
        elif kind == CONTINUE_AS_NEW:
            out.continued, out.continue_as_new = True, action.get("input")
        else:
            out.done = True
            out.error = f"devhost does not support action type {kind} ({action})"


def _schedule_activity(
    action: dict[str, Any], task_id: int, book: dict[str, Any], out: Outcome
) -> None:
    name, input_json = action.get("functionName"), action.get("input")
    if action.get("actionType") == CALL_ACTIVITY_RETRY:
        options = action.get("retryOptions") or {}
        book["retry"][str(task_id)] = {
            "name": name,
            "input": input_json,
            "attempt": 1,
            "max_attempts": int(options.get("maxNumberOfAttempts", 1)),
            "interval_ms": int(options.get("firstRetryIntervalInMilliseconds", 1000)),
        }
    out.activities.append((task_id, name, input_json))
    out.new_history.append(event(EventType.TASK_SCHEDULED, task_id, Name=name, Input=input_json))


def _schedule_timer(
    action: dict[str, Any], task_id: int, index: int, book: dict[str, Any], out: Outcome
) -> None:
    fire_at = _parse_time(action["fireAt"])
    book["timers"][str(index)] = task_id
    if not action.get("isCanceled"):
        out.timers.append((task_id, fire_at))
    out.new_history.append(event(EventType.TIMER_CREATED, task_id, FireAt=iso(fire_at)))


def _schedule_child(
    action: dict[str, Any], task_id: int, book: dict[str, Any], out: Outcome
) -> None:
    name, input_json = action.get("functionName"), action.get("input")
    child_id = action.get("instanceId") or f"{book.get('instance', 'sub')}:{task_id}"
    out.children.append((task_id, name, child_id, input_json))
    created = event(
        EventType.SUB_ORCHESTRATION_INSTANCE_CREATED,
        task_id,
        Name=name,
        InstanceId=child_id,
        Input=input_json,
    )
    out.new_history.append(created)


def _cancelled(actions: list[dict], book: dict[str, Any], out: Outcome) -> None:
    for index, task_id in list(book["timers"].items()):
        if actions[int(index)].get("isCanceled"):
            out.cancelled_timers.append(task_id)
            del book["timers"][index]


def _parse_time(value: str) -> datetime:
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
