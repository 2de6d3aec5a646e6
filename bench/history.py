"""Reading devhost history: the critical path of LLM calls and the Durable footprint.

Critical path. Every devhost episode applies the events waiting at its start
and appends ``[OrchestratorStarted, <those events>, TaskScheduled...,
OrchestratorCompleted]`` to the history. Each scheduled task's *trigger* is
the last event of its episode's batch: the latest to arrive, so the one the
episode could not have run without. Walking triggers back from the end of an
instance gives the chain of tasks the finish actually waited for; a
sub-orchestration on that chain is walked recursively. Each task on the chain
contributes the LLM calls it had to make one after another: the largest number
of non-overlapping fake-LLM calls that fall inside its [scheduled, completed]
interval (its own calls are sequential, so this is at least its own count and
at most interval / L). The bound is L × that sum: what the run would take with
zero orchestration, storage and CPU cost besides waiting for the LLM.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from devhost.engine import Engine
from devhost.history import EventType as E

STARTED, COMPLETED, FAILED = E.EXECUTION_STARTED, E.EXECUTION_COMPLETED, E.EXECUTION_FAILED
SCHEDULED, TASK_DONE = E.TASK_SCHEDULED, E.TASK_COMPLETED
SUB_CREATED, SUB_DONE = E.SUB_ORCHESTRATION_INSTANCE_CREATED, E.SUB_ORCHESTRATION_INSTANCE_COMPLETED
ORCH_STARTED = E.ORCHESTRATOR_STARTED
APPLIED = (
    STARTED,
    TASK_DONE,
    E.TASK_FAILED,
    SUB_DONE,
    E.SUB_ORCHESTRATION_INSTANCE_FAILED,
    E.TIMER_FIRED,
    E.EVENT_RAISED,
)


def _ts(event: dict[str, Any]) -> float:
    return datetime.fromisoformat(event["Timestamp"].replace("Z", "+00:00")).timestamp()


def sequential_calls(intervals: list[tuple[float, float]], start: float, end: float) -> int:
    """Most calls inside [start, end] that can be chained one after another (greedy)."""
    count, free_at = 0, start
    for begin, finish in sorted(intervals, key=lambda iv: iv[1]):
        if begin >= free_at - 0.002 and finish <= end + 0.002:
            count, free_at = count + 1, finish
    return count


@dataclass
class Chain:
    """The critical chain: LLM calls on it, seconds inside its tasks, seconds between them."""

    calls: int = 0
    in_tasks: float = 0.0
    between: float = 0.0
    steps: list[tuple[str, float, int]] = field(default_factory=list)  # (task, seconds, calls)

    def __iadd__(self, other: Chain) -> Chain:
        self.calls += other.calls
        self.in_tasks += other.in_tasks
        self.between += other.between
        self.steps += other.steps
        return self


def critical_chain(engine: Engine, instance_id: str, intervals: list[tuple[float, float]]) -> Chain:
    """Walk the tasks the instance's completion waited for, last to first (module docstring)."""
    inst = engine.get(instance_id)
    assert inst is not None
    events = inst.history
    trigger_of: dict[int, int] = {}  # task id -> index of the event that triggered its scheduling
    scheduled_at: dict[int, dict[str, Any]] = {}
    trigger, applying = -1, False
    for i, ev in enumerate(events):
        kind = ev["EventType"]
        if kind == ORCH_STARTED:
            applying = True
        elif kind in (SCHEDULED, SUB_CREATED):
            applying = False
            trigger_of[ev["EventId"]] = trigger
            scheduled_at[ev["EventId"]] = ev
        elif applying and kind in APPLIED:
            trigger = i  # the last event of the batch: the latest to arrive
    end = next((i for i, ev in enumerate(events) if ev["EventType"] in (COMPLETED, FAILED)), None)
    assert end is not None, f"{instance_id} has not finished"
    # the terminal event is written in the last episode: walk back from its last event
    last_start = max(i for i, ev in enumerate(events[:end]) if ev["EventType"] == ORCH_STARTED)
    cursor = max(i for i in range(last_start, end) if events[i]["EventType"] in APPLIED)
    chain, next_start = Chain(), _ts(events[end])
    while cursor >= 0 and events[cursor]["EventType"] != STARTED:
        done = events[cursor]
        task_id = done.get("TaskScheduledId")
        if task_id is None or task_id not in scheduled_at:  # timer or external event: no LLM
            break
        sched = scheduled_at[task_id]
        chain.between += max(0.0, next_start - _ts(done))
        if sched["EventType"] == SUB_CREATED:
            chain += critical_chain(engine, sched["InstanceId"], intervals)
        else:
            calls = sequential_calls(intervals, _ts(sched), _ts(done))
            chain.calls += calls
            chain.in_tasks += _ts(done) - _ts(sched)
            chain.steps.append((sched.get("Name", "?"), _ts(done) - _ts(sched), calls))
        next_start = _ts(sched)
        cursor = trigger_of[task_id]
    chain.between += max(0.0, next_start - _ts(events[0]))
    return chain


def footprint(engine: Engine, instance_id: str) -> tuple[int, int]:
    """(history events, largest task payload in bytes), sub-orchestrations included."""
    inst = engine.get(instance_id)
    assert inst is not None
    events, largest = len(inst.history), 0
    for ev in inst.history:
        for key in ("Input", "Result"):
            if ev["EventType"] in (SCHEDULED, TASK_DONE, SUB_CREATED, SUB_DONE) and ev.get(key):
                largest = max(largest, len(str(ev[key]).encode("utf-8")))
        if ev["EventType"] == SUB_CREATED:
            child_events, child_largest = footprint(engine, ev["InstanceId"])
            events += child_events
            largest = max(largest, child_largest)
    return events, largest


def activity_phase_span(engine: Engine, instance_id: str, name: str) -> float:
    """Seconds from the first ``name`` scheduled to the last one completed."""
    inst = engine.get(instance_id)
    assert inst is not None
    sched = {
        ev["EventId"]: _ts(ev)
        for ev in inst.history
        if ev["EventType"] == SCHEDULED and ev.get("Name") == name
    }
    done = [
        _ts(ev)
        for ev in inst.history
        if ev["EventType"] == TASK_DONE and ev.get("TaskScheduledId") in sched
    ]
    return max(done) - min(sched.values()) if sched and done else 0.0


def phase_floor(chain: Chain, span: float, name: str, latency: float) -> float:
    """The phase's span had every ``name`` task on the chain done nothing but its model calls.

    The fan-out's counterpart of the overhead floor: each such task's time beyond
    ``calls × latency`` (its own CPU, its dispatch, the GIL it waited for) is taken off
    the span; what is left is the model calls and the engine between the tasks. With one
    agent every researcher is on the chain, with four only the one that finished last.
    """
    beyond = sum(seconds - calls * latency for task, seconds, calls in chain.steps if task == name)
    return span - beyond


def activity_seconds(engine: Engine, instance_id: str) -> float:
    """Seconds its activities ran (scheduled → completed), sub-orchestrations included:
    over the session's wall time, the activity slots a session holds on average."""
    inst = engine.get(instance_id)
    assert inst is not None
    scheduled = {ev["EventId"]: _ts(ev) for ev in inst.history if ev["EventType"] == SCHEDULED}
    total = 0.0
    for ev in inst.history:
        if ev["EventType"] in (TASK_DONE, E.TASK_FAILED) and ev.get("TaskScheduledId") in scheduled:
            total += _ts(ev) - scheduled[ev["TaskScheduledId"]]
        elif ev["EventType"] == SUB_CREATED:
            total += activity_seconds(engine, ev["InstanceId"])
    return total
