"""The engine with activities in worker processes gives the same results as in-process.

``Engine(..., worker_processes=2)`` over ``tests.fakes.sample_app``: activities run in
two spawned processes that index the app themselves, so only JSON crosses. Results,
custom objects (the SDK's ``to_json`` envelope), failures with their reason, and the
engine's counters must read as they do with the thread pool; the activities must
really have run elsewhere (the sample app's call counters stay at zero here).
"""

from __future__ import annotations

import json
import logging
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from devhost import history as h
from devhost.activity_pool import MAX_PROCESS_LOSSES
from devhost.engine import Engine
from devhost.host import DevHost
from devhost.registry import index
from devhost.worker_processes import MAX_START_FAILURES
from shared.core.config import Settings
from tests.conftest import CORPUS_CACHE
from tests.fakes import sample_app

WAIT_S = 60.0
WARM_S = 120.0


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    folder: Path = tmp_path_factory.mktemp("workers")
    CORPUS_CACHE.mkdir(parents=True, exist_ok=True)  # each process warms up from it
    (folder / "corpus-cache").symlink_to(CORPUS_CACHE, target_is_directory=True)
    settings = Settings(data_dir=folder, reasoner="offline", search_provider="local")
    engine = Engine(
        index(sample_app.app),
        folder / "devhost.sqlite3",
        activity_workers=4,
        worker_processes=2,
        settings=settings,
        app_ref="tests.fakes.sample_app:app",
    )
    engine.start()
    assert engine.wait_workers_ready(WARM_S), "worker processes did not start"
    yield engine
    engine.stop()


def run(engine: Engine, name: str, payload=None):
    instance_id = engine.start_instance(name, uuid.uuid4().hex, json.dumps(payload))
    inst = engine.wait(instance_id, WAIT_S)
    assert inst is not None and inst.terminal, f"{name} still {inst and inst.status}"
    return inst


def test_activities_run_in_two_other_processes(engine: Engine) -> None:
    pids = engine.worker_pids()
    assert len(set(pids)) == 2 and os.getpid() not in pids
    before = sample_app.calls.get("double", 0)

    inst = run(engine, "fan_out", 20)

    assert json.loads(inst.output) == [2 * i for i in range(20)]
    assert engine.stats["activity:double"] >= 20
    assert sample_app.calls.get("double", 0) == before  # not one ran in this process


def test_custom_objects_cross_as_the_sdk_encodes_them(engine: Engine) -> None:
    inst = run(engine, "points")

    assert json.loads(inst.output) == {"type": "Point", "x": 2, "y": 1}


def test_a_failure_reaches_the_orchestrator_with_its_reason(engine: Engine) -> None:
    key = uuid.uuid4().hex
    inst = run(engine, "retrying", {"key": key, "fail_times": 99, "max_attempts": 2})

    assert json.loads(inst.output)["error"].startswith("RuntimeError: flaky failure")
    assert [e["EventType"] for e in inst.history].count(h.EventType.TASK_FAILED) == 2
    assert engine.stats["activity_failed:flaky"] >= 2


def test_an_activity_that_kills_its_worker_every_time_fails_instead_of_looping(
    engine: Engine,
) -> None:
    lost = engine.stats["activities_redelivered"]

    inst = run(engine, "poisoned")

    assert json.loads(inst.output)["error"].startswith("WorkerProcessLost: 3 worker processes")
    assert engine.stats["activities_redelivered"] - lost == MAX_PROCESS_LOSSES - 1
    assert len(engine.worker_pids()) == 2  # the dead ones were replaced
    assert run(engine, "fan_out", 4).output == "[0, 2, 4, 6]"  # and the others work on


def test_worker_processes_that_never_start_fail_the_work_and_are_not_started_forever(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An app the worker processes cannot import (a wrong app_ref, an import error in the
    child): after MAX_START_FAILURES such deaths in a row no process is started again, and
    the activity fails with the reason instead of waiting for a process forever."""
    settings = Settings(data_dir=tmp_path, reasoner="offline", search_provider="local")
    engine = Engine(
        index(sample_app.app),
        tmp_path / "devhost.sqlite3",
        activity_workers=2,
        worker_processes=2,
        settings=settings,
        app_ref="tests.fakes.no_such_app:app",
    )
    caplog.set_level(logging.WARNING, logger="devhost.workers")
    engine.start()
    try:
        assert not engine.wait_workers_ready(WARM_S)  # answered once none is left
        assert engine.worker_pids() == []

        inst = run(engine, "poisoned")

        error = json.loads(inst.output)["error"]
        assert error.startswith("WorkerProcessFailed: ") and "ended before they were ready" in error
        ended = [r for r in caplog.records if "before it was ready" in r.getMessage()]
        assert len(ended) == MAX_START_FAILURES + 1  # both slots: the last two end it
        assert [r.levelno for r in ended][-2:] == [logging.ERROR, logging.ERROR]
        assert engine.stats["activities_redelivered"] == 0  # it never ran anywhere
        later = run(engine, "fan_out", 2)  # later work fails at once too
        assert later.status == "Failed" and "WorkerProcessFailed" in (later.output or "")
    finally:
        engine.stop()


def test_an_app_built_in_this_process_is_served_when_activities_stay_in_it(tmp_path: Path) -> None:
    """Only worker processes import the app again by name: with the default of one
    process, an app that exists only here (a benchmark's, a test's) is served as before."""
    import azure.durable_functions as df

    built = df.DFApp()

    @built.activity_trigger(input_name="value")
    def triple(value: int) -> int:
        return 3 * value

    settings = Settings(data_dir=tmp_path, reasoner="offline", search_provider="local")
    host = DevHost(settings, port=0, app=built).start()
    try:
        assert "triple" in host.engine.registry.activities
    finally:
        host.stop()
