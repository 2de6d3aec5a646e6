"""The devhost engine runs real SDK orchestrations: fan-out, retries, events, timers, crash-resume.

Driven directly (no HTTP) with ``tests.fakes.sample_app``, one Durable
behaviour per orchestrator, and the engine's SQLite file in a tmp folder.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from devhost import history as h
from devhost.engine import Engine, InstanceExists
from devhost.instances import Instance
from devhost.registry import index
from tests.fakes import sample_app

WAIT_S = 30.0


@pytest.fixture
def make_engine(tmp_path: Path) -> Iterator[Callable[[], Engine]]:
    """Engines on one SQLite file (a second one plays the restarted process)."""
    engines: list[Engine] = []

    def make() -> Engine:
        engine = Engine(index(sample_app.app), tmp_path / "devhost.sqlite3", activity_workers=4)
        engine.start()
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        if not engine.stopping:
            engine.stop()


@pytest.fixture
def engine(make_engine) -> Engine:
    return make_engine()


def run(engine: Engine, name: str, payload=None, instance_id: str | None = None) -> Instance:
    instance_id = engine.start_instance(name, instance_id or uuid.uuid4().hex, json.dumps(payload))
    inst = engine.wait(instance_id, WAIT_S)
    assert inst is not None and inst.terminal, f"{name} still {inst and inst.status}"
    return inst


def output(inst: Instance):
    return json.loads(inst.output) if inst.output else None


def kinds(inst: Instance) -> list[int]:
    return [e["EventType"] for e in inst.history]


def wait_until(predicate: Callable[[], bool], what: str, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_fan_out_returns_every_result_in_order_with_custom_status(engine: Engine) -> None:
    inst = run(engine, "fan_out", 5)

    assert inst.status == "Completed"
    assert output(inst) == [0, 2, 4, 6, 8]
    assert json.loads(inst.custom_status) == {"done": 5}
    assert kinds(inst).count(h.EventType.TASK_SCHEDULED) == 5
    assert kinds(inst).count(h.EventType.TASK_COMPLETED) == 5
    assert kinds(inst)[-1] == h.EventType.EXECUTION_COMPLETED
    assert engine.stats["activity:double"] == 5


def test_counters_stay_exact_when_many_activities_finish_at_once(engine: Engine) -> None:
    """Activity threads update ``stats`` together: no increment may be lost."""
    n = 200
    inst = run(engine, "fan_out", n)

    assert output(inst) == [2 * i for i in range(n)]
    assert engine.stats["activity:double"] == n
    assert engine.stats["activities_dispatched"] == n


def test_fan_out_over_nothing_completes_without_activities(engine: Engine) -> None:
    inst = run(engine, "fan_out", 0)

    assert (inst.status, output(inst)) == ("Completed", [])
    assert engine.stats["activities_dispatched"] == 0


def test_retry_succeeds_after_failures(engine: Engine) -> None:
    key = uuid.uuid4().hex
    inst = run(engine, "retrying", {"key": key, "fail_times": 2, "max_attempts": 3})

    assert output(inst) == {"result": {"attempts": 3}}
    assert sample_app.calls[f"flaky:{key}"] == 3
    assert kinds(inst).count(h.EventType.TASK_FAILED) == 2
    assert engine.stats["activity_failed:flaky"] == 2


def test_retry_exhaustion_reaches_the_orchestrator_as_an_exception(engine: Engine) -> None:
    key = uuid.uuid4().hex
    inst = run(engine, "retrying", {"key": key, "fail_times": 99, "max_attempts": 2})

    assert inst.status == "Completed"  # the orchestrator caught it
    assert output(inst) == {"error": "RuntimeError: flaky failure 2"}
    assert sample_app.calls[f"flaky:{key}"] == 2  # no attempt beyond the maximum


def test_retries_and_completions_arriving_together_keep_their_task_ids(engine: Engine) -> None:
    n = 12
    inst = run(engine, "retrying_fan", {"key": uuid.uuid4().hex, "n": n})

    assert inst.status == "Completed", inst.output
    assert output(inst) == [i % 3 + 1 for i in range(n)] + [2 * i for i in range(n)]
    failures = sum(i % 3 for i in range(n))
    assert kinds(inst).count(h.EventType.TASK_FAILED) == failures


def test_task_any_returns_the_first_finished_task(engine: Engine) -> None:
    inst = run(engine, "first_of")

    assert output(inst) == "fast"


def test_external_event_wins_the_race_and_cancels_the_timer(engine: Engine) -> None:
    instance_id = engine.start_instance("approval", None, json.dumps(3600))
    wait_until(lambda: (engine.get(instance_id).custom_status or "") == '"waiting"', "waiting")
    assert engine.raise_event(instance_id, "approval", json.dumps({"by": "ana"})) == "ok"
    wait_until(lambda: engine.get(instance_id).custom_status == '"approved"', "the approval")
    assert engine.store.pending_work() == []  # the hour-long timer is gone while still running

    assert engine.raise_event(instance_id, "confirm", None) == "ok"
    inst = engine.wait(instance_id, WAIT_S)
    assert (inst.status, output(inst)) == ("Completed", {"approved": {"by": "ana"}})
    assert json.loads(inst.custom_status) == "approved"
    assert h.EventType.EVENT_RAISED in kinds(inst)
    assert h.EventType.TIMER_FIRED not in kinds(inst)


def test_timer_wins_the_race_when_no_event_comes(engine: Engine) -> None:
    inst = run(engine, "approval", 0.5)

    assert output(inst) == {"approved": None}
    assert h.EventType.TIMER_FIRED in kinds(inst)


def test_events_for_unknown_or_finished_instances_are_refused(engine: Engine) -> None:
    inst = run(engine, "fan_out", 1)

    assert engine.raise_event("nobody", "approval", None) == "not_found"
    assert engine.raise_event(inst.id, "approval", None) == "gone"


def test_sub_orchestrations_return_results_and_failures(engine: Engine) -> None:
    inst = run(engine, "parent")

    assert inst.status == "Completed"
    result = output(inst)
    assert result["doubled"] == [0, 2, 4]
    assert "broken" in result["child_error"] and "Failed" in result["child_error"]
    child = engine.get(f"{inst.id}:broken")
    assert child.status == "Failed" and "the child gave up" in output(child)
    assert engine.stats["instances_started"] == 1  # children are created by the engine itself


def test_continue_as_new_restarts_with_fresh_history(engine: Engine) -> None:
    inst = run(engine, "counter", {"n": 0, "target": 4, "seen": []})

    assert output(inst) == [0, 2, 4, 6]
    assert json.loads(inst.custom_status) == {"generation": 3}
    # only the last generation's history is kept
    assert kinds(inst).count(h.EventType.TASK_SCHEDULED) == 1
    assert json.loads(inst.history[1]["Input"]) == {"n": 3, "target": 4, "seen": [0, 2, 4]}


def test_terminate_stops_a_running_instance(engine: Engine) -> None:
    instance_id = engine.start_instance("long_running", None, None)
    wait_until(lambda: engine.get(instance_id).custom_status == '"sleeping"', "the timer")

    assert engine.terminate(instance_id, "enough") == "ok"
    inst = engine.get(instance_id)
    assert (inst.status, output(inst)) == ("Terminated", "enough")
    assert kinds(inst)[-1] == h.EventType.EXECUTION_TERMINATED
    assert engine.store.pending_work() == []
    assert engine.terminate(instance_id, "again") == "gone"
    assert engine.purge(instance_id) == 1 and engine.get(instance_id) is None


def test_a_running_id_cannot_be_started_twice_but_a_finished_one_can(engine: Engine) -> None:
    instance_id = engine.start_instance("long_running", "fixed-id", None)
    with pytest.raises(InstanceExists):
        engine.start_instance("fan_out", instance_id, "1")
    engine.terminate(instance_id, "done")

    inst = run(engine, "fan_out", 2, instance_id=instance_id)
    assert (inst.name, output(inst)) == ("fan_out", [0, 2])


def test_non_deterministic_replay_fails_the_instance(engine: Engine) -> None:
    inst = run(engine, "nondeterministic")

    assert inst.status == "Failed"
    assert "Non-deterministic" in output(inst)


def test_a_restarted_engine_resumes_and_reruns_only_the_unfinished_activity(
    make_engine,
) -> None:
    gate_name = uuid.uuid4().hex
    came_in, release = sample_app.gate(gate_name)
    first = make_engine()
    instance_id = first.start_instance("pipeline", None, json.dumps(gate_name))
    assert came_in.wait(WAIT_S), "the gated step never started"

    # The "crash": the engine stops while the activity runs, so its result is lost.
    stopper = threading.Thread(target=first.stop)
    stopper.start()
    wait_until(lambda: first.stopping, "the engine to stop")
    release.set()
    stopper.join(WAIT_S)
    second = make_engine()
    inst = second.wait(instance_id, WAIT_S)

    assert (inst.status, output(inst)) == ("Completed", [2, f"passed {gate_name}", 4])
    assert sample_app.calls[f"gated:{gate_name}"] == 2  # at-least-once: it ran again
    assert second.stats["activity:double"] == 1  # step 1 was not repeated, step 3 ran
    assert second.stats["activity:gated"] == 1


def test_a_restarted_engine_re_arms_pending_timers(make_engine) -> None:
    first = make_engine()
    instance_id = first.start_instance("approval", None, json.dumps(1.0))
    wait_until(lambda: first.get(instance_id).custom_status == '"waiting"', "waiting")
    first.stop()

    second = make_engine()
    inst = second.wait(instance_id, WAIT_S)
    assert (inst.status, output(inst)) == ("Completed", {"approved": None})
