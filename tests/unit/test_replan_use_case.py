"""A retried replan returns the plan its first try made: the model may plan differently twice."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from shared.adapters.stores.filesystem import FilesystemMemoryStore
from shared.core.config import Settings
from shared.core.replan_models import ReplanIn
from shared.core.research_models import ResearchContext, ResearchPlan, ResearchTopic
from shared.usecases.research import memory_files
from shared.usecases.research.replan import replan_research


class ShiftingPlanner:
    """A planner that plans something new on every call, as a sampled model may."""

    def __init__(self) -> None:
        self.calls = 0

    def plan(self, context, analysis, max_topics) -> ResearchPlan:
        self.calls += 1
        topic = ResearchTopic(id=1, title=f"Direction {self.calls}", queries=["q"])
        return ResearchPlan(summary=f"plan {self.calls}", topics=[topic])


@dataclass
class Services:
    memory: FilesystemMemoryStore
    reasoner: ShiftingPlanner = field(default_factory=ShiftingPlanner)
    settings: Settings = field(default_factory=Settings)


def test_a_retried_replan_returns_and_records_the_first_plan(tmp_path: Path) -> None:
    svc = Services(memory=FilesystemMemoryStore(tmp_path))
    old = ResearchPlan(topics=[ResearchTopic(id=1, title="Wrong direction")])
    req = ReplanIn(
        context=ResearchContext(session_id="s1", query="q"),
        plan=old,
        reason="the sources are about something else",
        replan_n=1,
        agent_ids=[1],
        max_todos=2,
        first_todo=3,
    )

    first = replan_research(svc, req)
    again = replan_research(svc, req)  # Durable runs an activity at least once

    assert svc.reasoner.calls == 1
    assert again.plan == first.plan and again.todos == first.todos
    main = svc.memory.read_text("s1", memory_files.MAIN)
    assert main.count("## Replan 1") == 1 and "Direction 1" in main and "Direction 2" not in main
