"""A capacity model for Azure, from what the bench measured in the same run.

Nothing here runs in Azure. The inputs are measured on devhost (per deep
research with a model answered by the fake: worker CPU-seconds, durable
actions, activities in flight on average, the critical chain of model calls;
from the load scenario: memory per session in flight); the platform figures
are Microsoft's published ones (docs/benchmarks.md names them); the one
assumption is a real model's reply time, ``MODEL_REPLY_S``.

Per instance, a session needs ``slots`` of the activity pool, ``cpu / wall`` of
a core and ``mem`` of memory, so::

    wall              = chain_calls × MODEL_REPLY_S × overhead
    sessions/instance = min(ACTIVITY_SLOTS / slots,
                            VCPU × CPU_TARGET / (cpu / wall),
                            (MEMORY_MB - BASE_MB) / mem)
    instances(N)      = ceil(N / sessions/instance)
    actions/s(N)      = N × actions / wall         (Durable Task Scheduler)
    activities/s(N)   = N × activities / wall      (Azure Storage, per instance: / instances)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from bench.results import Row, verdict

ROOT = Path(__file__).resolve().parents[1]
SESSIONS = 1000
MODEL_REPLY_S = 4.0  # assumed: a structured reply of ~1k tokens from a mini model, typical
VCPU = 1.0  # Flex Consumption, 2048 MB instance (infra default): CPU is given in proportion
CPU_TARGET = 0.7  # leave headroom for replay bursts and the HTTP front
MEMORY_MB = 2048  # infra/app/api.bicep instanceMemoryMB default
MAX_INSTANCES = 40  # infra/main.bicep maximumInstanceCount default (Flex allows up to 1,000)
DTS_CONSUMPTION_APS = 500  # Durable Task Scheduler, Consumption SKU: actions per second
DTS_DEDICATED_APS = 2000  # Durable Task Scheduler, Dedicated SKU: per capacity unit (≤ 3)
STORAGE_FANOUT_APS = 100  # Azure Storage provider, published: parallel activities/s per instance
STORAGE_MAX_PARTITIONS = 16  # Azure Storage provider: orchestrations spread over ≤ 16 instances


@dataclass(frozen=True)
class Measured:
    cpu_s: float  # worker CPU-seconds per session
    actions: int  # durable actions per session
    activities: int
    slots: float  # activities in flight on average (activity-seconds / wall)
    chain_calls: int  # model calls on the critical chain
    overhead: float  # wall / critical-path bound on devhost
    session_mb: float  # memory per session in flight (load scenario)
    base_mb: float  # the worker's memory before any session


def host_slots() -> tuple[int, int]:
    """(maxConcurrentActivityFunctions, maxConcurrentOrchestratorFunctions) from host.json."""
    durable = json.loads((ROOT / "host.json").read_text(encoding="utf-8"))["extensions"]
    durable = durable["durableTask"]
    return durable["maxConcurrentActivityFunctions"], durable["maxConcurrentOrchestratorFunctions"]


def capacity_rows(m: Measured, sessions: int = SESSIONS) -> list[Row]:
    activity_slots, _ = host_slots()
    wall = m.chain_calls * MODEL_REPLY_S * m.overhead
    limits = {
        "activity slots": activity_slots / max(m.slots, 1e-9),
        "CPU": VCPU * CPU_TARGET / max(m.cpu_s / wall, 1e-9),
        "memory": (MEMORY_MB - m.base_mb) / max(m.session_mb, 1e-9),
    }
    first = min(limits, key=lambda k: limits[k])
    per_instance = limits[first]
    instances = math.ceil(sessions / per_instance)
    aps = sessions * m.actions / wall
    activity_rate = sessions * m.activities / wall / instances
    return [
        (
            "capacity (model): a session's wall in Azure, at the assumed model reply time",
            f"{wall:.0f} s = {m.chain_calls} chained calls × {MODEL_REPLY_S:.0f} s × "
            f"{m.overhead:.2f}",
            "",
            "—",
        ),
        (
            "capacity (model): concurrent sessions per Flex instance (2048 MB, host.json slots)",
            f"{per_instance:.0f}, first limit: {first} ("
            + ", ".join(f"{k} {v:.0f}" for k, v in limits.items())
            + ")",
            "",
            "—",
        ),
        (
            f"capacity (model): instances for {sessions} concurrent sessions",
            f"{instances} (maximumInstanceCount default {MAX_INSTANCES}: "
            f"{MAX_INSTANCES * per_instance:.0f} sessions)",
            "",
            "—",
        ),
        (
            f"capacity (model): Durable Task Scheduler at {sessions} sessions",
            f"{aps:.0f} actions/s (Consumption ≤ {DTS_CONSUMPTION_APS}; Dedicated "
            f"{math.ceil(aps / DTS_DEDICATED_APS)} CU of {DTS_DEDICATED_APS})",
            "",
            verdict(aps <= DTS_CONSUMPTION_APS),
        ),
        (
            f"capacity (model): Azure Storage at {sessions} sessions",
            f"{activity_rate:.1f} activities/s per instance (published ≤ {STORAGE_FANOUT_APS}); "
            f"orchestrations on ≤ {STORAGE_MAX_PARTITIONS} instances",
            "",
            verdict(activity_rate <= STORAGE_FANOUT_APS),
        ),
    ]
