"""The Azure capacity model: the first limit and the instance count follow from the inputs."""

from __future__ import annotations

import json
from pathlib import Path

from bench.capacity import MEMORY_MB, Measured, capacity_rows, host_slots

ROOT = Path(__file__).resolve().parents[2]
LLM_BOUND = Measured(
    cpu_s=1.8,
    actions=110,
    activities=50,
    slots=1.3,
    chain_calls=55,
    overhead=1.05,
    session_mb=0.5,
    base_mb=250,
)


def _value(rows: list[tuple[str, str, str, str]], prefix: str) -> str:
    return next(value for metric, value, _, _ in rows if metric.startswith(prefix))


def test_slots_come_from_host_json() -> None:
    durable = json.loads((ROOT / "host.json").read_text())["extensions"]["durableTask"]
    assert host_slots() == (
        durable["maxConcurrentActivityFunctions"],
        durable["maxConcurrentOrchestratorFunctions"],
    )


def test_sessions_waiting_on_the_model_are_bounded_by_activity_slots() -> None:
    rows = capacity_rows(LLM_BOUND, sessions=1000)
    activity_slots, _ = host_slots()
    per_instance = activity_slots / LLM_BOUND.slots
    assert _value(rows, "capacity (model): concurrent sessions").startswith(
        f"{per_instance:.0f}, first limit: activity slots"
    )
    instances = _value(rows, "capacity (model): instances for 1000")
    assert instances.startswith(f"{-(-1000 // per_instance):.0f} ")


def test_cpu_heavy_sessions_are_bounded_by_cpu() -> None:
    heavy = Measured(**{**LLM_BOUND.__dict__, "cpu_s": 200.0})
    assert "first limit: CPU" in _value(capacity_rows(heavy), "capacity (model): concurrent")


def test_memory_heavy_sessions_are_bounded_by_memory() -> None:
    fat = Measured(**{**LLM_BOUND.__dict__, "session_mb": (MEMORY_MB - 250) / 2})
    assert "first limit: memory" in _value(capacity_rows(fat), "capacity (model): concurrent")
