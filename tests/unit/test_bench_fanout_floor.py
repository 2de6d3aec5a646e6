"""The fan-out floor: a researcher phase's span less its researchers' own time beyond their
model calls, read from a devhost history the way the bench reads it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest

from bench import history
from devhost.history import EventType as E

L = 0.2
T0 = 1_800_000_000.0


def _at(seconds: float) -> str:
    return datetime.fromtimestamp(T0 + seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _ev(kind: E, seconds: float, event_id: int = -1, **fields: Any) -> dict[str, Any]:
    return {"EventType": int(kind), "EventId": event_id, "Timestamp": _at(seconds), **fields}


@dataclass
class _Instance:
    history: list[dict[str, Any]]


@dataclass
class _Engine:
    """What ``bench.history`` reads of devhost's engine: instances by id."""

    instances: dict[str, _Instance] = field(default_factory=dict)

    def get(self, instance_id: str) -> _Instance | None:
        return self.instances.get(instance_id)


def _episode(at: float, applied: list[dict], scheduled: list[tuple[int, str]]) -> list[dict]:
    """One devhost episode: the events it applied, then the tasks it scheduled."""
    tasks = [_ev(E.TASK_SCHEDULED, at, task_id, Name=name) for task_id, name in scheduled]
    return [_ev(E.ORCHESTRATOR_STARTED, at), *applied, *tasks, _ev(E.ORCHESTRATOR_COMPLETED, at)]


def _done(task_id: int, at: float) -> dict:
    return _ev(E.TASK_COMPLETED, at, TaskScheduledId=task_id)


def _calls(*starts: float) -> list[tuple[float, float]]:
    return [(T0 + s, T0 + s + L) for s in starts]


def _floor(events: list[dict], intervals: list[tuple[float, float]]) -> tuple[float, float]:
    engine = _Engine({"s": _Instance(events)})
    span = history.activity_phase_span(engine, "s", "run_researcher")  # type: ignore[arg-type]
    chain = history.critical_chain(engine, "s", intervals)  # type: ignore[arg-type]
    return span, history.phase_floor(chain, span, "run_researcher", L)


def test_one_agent_every_researcher_is_on_the_chain() -> None:
    # two researchers one after the other, three calls each, then the report (no calls)
    events = [
        *_episode(0.00, [_ev(E.EXECUTION_STARTED, 0.00)], [(0, "run_researcher")]),
        *_episode(0.86, [_done(0, 0.85)], [(1, "run_researcher")]),
        *_episode(1.76, [_done(1, 1.75)], [(2, "generate_final_report")]),
        *_episode(1.99, [_done(2, 1.98)], []),
        _ev(E.EXECUTION_COMPLETED, 2.00),
    ]
    intervals = _calls(0.05, 0.30, 0.55, 0.90, 1.15, 1.40)
    span, floor = _floor(events, intervals)
    assert span == pytest.approx(1.75)
    # beyond their calls: 0.85 - 0.6 and (1.75 - 0.86) - 0.6; what is left is
    # six calls and the engine's 10 ms between the two researchers
    assert floor == pytest.approx(6 * L + 0.01)


def test_four_agents_only_the_last_to_finish_counts() -> None:
    # two researchers at once; the one that finished last held the phase open
    events = [
        *_episode(
            0.00, [_ev(E.EXECUTION_STARTED, 0.00)], [(0, "run_researcher"), (1, "run_researcher")]
        ),
        *_episode(0.71, [_done(0, 0.70)], []),
        *_episode(0.91, [_done(1, 0.90)], [(2, "generate_final_report")]),
        *_episode(1.01, [_done(2, 1.00)], []),
        _ev(E.EXECUTION_COMPLETED, 1.02),
    ]
    intervals = sorted(_calls(0.02, 0.25, 0.48) + _calls(0.03, 0.28, 0.60))
    span, floor = _floor(events, intervals)
    assert span == pytest.approx(0.90)
    assert floor == pytest.approx(3 * L)  # researcher 1's 0.30 s of its own work is gone


def test_a_researcher_that_did_only_its_calls_leaves_the_span_as_it_was() -> None:
    events = [
        *_episode(0.00, [_ev(E.EXECUTION_STARTED, 0.00)], [(0, "run_researcher")]),
        *_episode(0.41, [_done(0, 0.40)], []),
        _ev(E.EXECUTION_COMPLETED, 0.42),
    ]
    span, floor = _floor(events, _calls(0.0, 0.2))
    assert floor == pytest.approx(span) == pytest.approx(0.40)
