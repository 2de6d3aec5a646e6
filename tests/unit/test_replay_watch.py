"""The watch orchestration, replayed by the SDK's executor (``tests.fakes.durable_history``).

What a restart must not change is what these replays pin down: a run waits on one
durable timer, runs its session as a sub-orchestration whose instance id is the run's
session id, compares, and continues as new with the next run and its due time; a
paused watch keeps its run number; a deleted one stops.
"""

from __future__ import annotations

from datetime import timedelta

import function_app
from devhost.registry import index
from shared.core import names
from shared.core.payloads import FAILURE_KEY
from shared.core.watch_models import WatchStep, WatchTick
from tests.fakes.durable_history import START, Replay

HANDLER = index(function_app.app).orchestrators[names.WATCH_ORCHESTRATOR]
DUE = START + timedelta(minutes=5)
NEXT = START + timedelta(minutes=10)
START_INPUT = {"session_id": "watch-1-r3", "mode": "search"}


def tick(run: int = 3, due=DUE) -> dict:
    return WatchTick(watch_id="watch-1", run=run, due=due).model_dump(mode="json")


def started(due=DUE) -> Replay:
    return Replay(HANDLER, tick(due=due), instance_id="watch-1").start()


def decided(flow: Replay, step: WatchStep) -> Replay:
    activity = flow.next_activity(names.WATCH_RUN_START)
    assert activity.input == flow.input  # the tick, as it came
    return flow.complete(activity.task_id, step.model_dump(mode="json"))


RUN = WatchStep(
    action="run",
    next_due=NEXT,
    next_run=4,
    orchestrator=names.SEARCH,
    start_input=START_INPUT,
)


def test_a_run_waits_for_its_time_runs_its_session_compares_and_continues_as_new() -> None:
    flow = started()
    assert [s.kind for s in flow.pending.values()] == ["timer"]  # nothing runs before it is due
    assert flow.timers()[0].input.startswith(DUE.strftime("%Y-%m-%dT%H:%M:%S"))
    flow.fire(flow.timers()[0].task_id)
    flow = decided(flow, RUN)

    child = next(s for s in flow.pending.values() if s.kind == "sub")
    assert (child.name, child.input) == (names.SEARCH, START_INPUT)
    assert child.instance_id == "watch-1-r3"  # one session per run, whatever replays
    flow.sub_completed(child.task_id, {"status": "completed"})
    compare = flow.next_activity(names.WATCH_COMPARE)
    assert compare.input == {"watch_id": "watch-1", "run": 3}
    flow.complete(compare.task_id, {"changed": True, "notified": True})

    assert flow.done and flow.error is None
    assert flow.continued_with == WatchTick(watch_id="watch-1", run=4, due=NEXT).model_dump(
        mode="json"
    )


def test_a_due_time_already_past_runs_at_once_without_a_timer() -> None:
    flow = started(due=START - timedelta(minutes=1))
    assert flow.timers() == [] and flow.next_activity(names.WATCH_RUN_START)


def test_a_failed_run_is_still_compared_and_the_schedule_goes_on() -> None:
    flow = decided(started(due=None), RUN)
    child = next(s for s in flow.pending.values() if s.kind == "sub")
    flow.sub_failed(child.task_id)
    flow.complete(flow.next_activity(names.WATCH_COMPARE).task_id, {"changed": False})
    assert flow.done and flow.continued_with["run"] == 4


def test_a_paused_watch_skips_the_run_and_keeps_its_number() -> None:
    flow = started()
    flow.fire(flow.timers()[0].task_id)
    flow = decided(flow, WatchStep(action="skip", next_due=NEXT, next_run=3))
    assert [s.kind for s in flow.scheduled] == ["timer", "activity"]  # no session, no compare
    assert flow.done and flow.continued_with == tick(run=3, due=NEXT)


def test_a_deleted_or_unreadable_watch_stops_for_good() -> None:
    flow = started(due=None)
    flow = decided(flow, WatchStep(action="stop"))
    assert flow.done and flow.continued_with is None and flow.output == {"stopped_at_run": 3}

    broken = started(due=None)
    failure = {FAILURE_KEY: {"kind": "permanent", "error": "ValidationError: watch.json"}}
    broken.complete(broken.next_activity(names.WATCH_RUN_START).task_id, failure)
    assert broken.done and broken.continued_with is None
    assert broken.output["stopped_at_run"] == 3
