"""Replay harness: drive a registered orchestrator handle over histories, read its actions.

Two ways in, both through the SDK's own executor (``Orchestrator.create(fn)``):

- :func:`replay` feeds one complete history (e.g. recorded by devhost) in a
  single context JSON and returns the SDK's state: the actions the
  orchestrator emits for that history, its custom status, output or error.
- :class:`Replay` plays the extension one event at a time (the way Azure
  and devhost deliver them), numbering new actions with the task ids the SDK
  expects; a test answers activities, fails them, fires timers, raises events
  and inspects what the orchestrator asked for next. The id bookkeeping is
  devhost's (``devhost.replay.run_episode``), the same code that hosts the app.

Histories are JSON lists of events shaped by ``devhost.history``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from devhost import history as h
from devhost.replay import REPLAY_SCHEMA_V2, new_book, run_episode

START = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
WHEN_ANY, WHEN_ALL = 11, 12


def flatten(actions: list[Any]) -> list[dict[str, Any]]:
    """The SDK's nested action list (replay schema V2) as scheduled atomic actions, in order."""
    flat: list[dict[str, Any]] = []
    for item in actions:
        if isinstance(item, list):
            flat += flatten(item)
        elif item.get("actionType") in (WHEN_ANY, WHEN_ALL):
            flat += flatten(item.get("compoundActions", []))
        else:
            flat.append(item)
    return flat


def replay(
    handler: Callable[[str], str],
    input_json: str | None,
    history: list[dict[str, Any]],
    instance_id: str = "replay",
) -> dict[str, Any]:
    """One SDK execution over ``history`` (all events marked as played)."""
    context = {
        "history": [dict(e, IsPlayed=True) for e in history],
        "instanceId": instance_id,
        "isReplaying": True,
        "parentInstanceId": None,
        "input": input_json,
        "upperSchemaVersion": REPLAY_SCHEMA_V2,
    }
    return json.loads(handler(json.dumps(context)))


def function_names(state: dict[str, Any], kinds: tuple[int, ...] | None = None) -> list[str]:
    """Names of the scheduled actions (activity / sub-orchestrator / event), optionally by type."""
    return [
        a.get("functionName") or a.get("externalEventName") or str(a.get("actionType"))
        for a in flatten(state.get("actions") or [])
        if kinds is None or a.get("actionType") in kinds
    ]


@dataclass
class Scheduled:
    task_id: int
    kind: str  # "activity" | "timer" | "sub"
    name: str | None
    input: Any
    instance_id: str | None = None  # a sub-orchestration's own instance id


@dataclass
class Replay:
    """An orchestration instance advanced by hand, one delivered event per episode."""

    handler: Callable[[str], str]
    input: Any
    instance_id: str = "replay"
    now: datetime = START
    history: list[dict[str, Any]] = field(default_factory=list)
    book: dict[str, Any] = field(default_factory=new_book)
    pending: dict[int, Scheduled] = field(default_factory=dict)
    scheduled: list[Scheduled] = field(default_factory=list)
    custom_status: Any = None
    done: bool = False
    output: Any = None
    error: str | None = None
    continued_with: Any = None  # the input of continue_as_new, when the run ended with it

    def start(self) -> Replay:
        self.book["instance"] = self.instance_id
        return self._deliver(h.execution_started("orchestrator", json.dumps(self.input), None))

    # -- deliveries ------------------------------------------------------------------

    def complete(self, task_id: int, result: Any) -> Replay:
        self.pending.pop(task_id)
        return self._deliver(h.task_completed(task_id, json.dumps(result)))

    def fail(self, task_id: int, reason: str = "RuntimeError: boom") -> Replay:
        self.pending.pop(task_id)
        return self._deliver(h.task_failed(task_id, reason, "Traceback: (replay test)"))

    def fail_for_good(self, task_id: int, reason: str = "RuntimeError: boom") -> Replay:
        """Fail this call and every retry attempt, then fire the last back-off timer."""
        chain = self.book["retry"].get(str(task_id))
        self.fail(task_id, reason)
        if chain is None:  # a plain call_activity: no retries, no back-off timer
            return self
        for _ in range(chain["max_attempts"] - chain["attempt"]):
            self.fire(self._retry_timer().task_id)
            retry = max(int(k) for k in self.book["retry"])
            self.fail(retry, reason)
        self.fire(self._retry_timer().task_id)  # the SDK gives up only after this timer
        return self

    def fire(self, task_id: int) -> Replay:
        timer = self.pending.pop(task_id)
        return self._deliver(h.timer_fired(task_id, timer.input))

    def raise_event(self, name: str, data: Any) -> Replay:
        return self._deliver(h.event_raised(name, json.dumps(data)))

    def sub_completed(self, task_id: int, result: Any) -> Replay:
        self.pending.pop(task_id)
        return self._deliver(h.sub_completed(task_id, json.dumps(result)))

    def sub_failed(self, task_id: int, reason: str = "RuntimeError: boom") -> Replay:
        self.pending.pop(task_id)
        return self._deliver(h.sub_failed(task_id, reason, "Traceback: (replay test)"))

    # -- inspection ------------------------------------------------------------------

    def activities(self, name: str | None = None) -> list[Scheduled]:
        return [
            s
            for s in self.pending.values()
            if s.kind == "activity" and (name is None or s.name == name)
        ]

    def next_activity(self, name: str | None = None) -> Scheduled:
        found = self.activities(name)
        assert found, f"no pending activity {name or ''}; pending: {list(self.pending.values())}"
        return found[0]

    def names_scheduled(self) -> list[str | None]:
        return [s.name for s in self.scheduled if s.kind == "activity"]

    def timers(self) -> list[Scheduled]:
        return [s for s in self.pending.values() if s.kind == "timer"]

    def run_activities(self, respond: Callable[[str, Any], Any], limit: int = 500) -> Replay:
        """Answer pending activities in task order until none is left (or the run ends)."""
        for _ in range(limit):
            if self.done or not self.activities():
                return self
            nxt = self.next_activity()
            self.complete(nxt.task_id, respond(nxt.name or "", nxt.input))
        raise AssertionError("the orchestration did not settle")

    # -- the extension's part ----------------------------------------------------------

    def _retry_timer(self) -> Scheduled | None:
        ids = {int(k) for k in self.book["retry_timers"]}
        return next((s for s in self.pending.values() if s.task_id in ids), None)

    def _deliver(self, event: dict[str, Any]) -> Replay:
        assert not self.done, "the orchestration already finished"
        self.now += timedelta(seconds=1)
        outcome = run_episode(
            self.handler,
            self.instance_id,
            None,
            json.dumps(self.input),
            self.history,
            [event],
            self.book,
            self.now,
        )
        self.history += outcome.new_history
        if outcome.custom_status is not None:
            self.custom_status = outcome.custom_status
        for task_id, name, input_json in outcome.activities:
            self._add(Scheduled(task_id, "activity", name, _load(input_json)))
        for task_id, fire_at in outcome.timers:
            self._add(Scheduled(task_id, "timer", None, h.iso(fire_at)))
        for task_id in outcome.cancelled_timers:
            self.pending.pop(task_id, None)
        for task_id, name, child, input_json in outcome.children:
            self._add(Scheduled(task_id, "sub", name, _load(input_json), child))
        if outcome.done:
            self.done, self.error = True, outcome.error
            self.output = _load(outcome.output_json)
            if outcome.continued:
                self.continued_with = _load(outcome.continue_as_new)
        return self

    def _add(self, item: Scheduled) -> None:
        self.pending[item.task_id] = item
        self.scheduled.append(item)


def _load(text: str | None) -> Any:
    return json.loads(text) if text else None
