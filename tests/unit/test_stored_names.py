"""Data stored under a field's former name still reads after the rename.

Orchestration inputs (with their ``Caps``) live in the Durable history and are
read again on every replay; a run started before a deploy wakes up after it.
Renaming a field must therefore keep accepting the old key, or a run in flight
would fall back to the defaults (or fail) halfway through.
"""

from __future__ import annotations

from typing import Any

import pytest

import function_app
from devhost.registry import index
from shared.core import names
from shared.core.config import Caps
from shared.core.session_models import StartInput
from tests.fakes.durable_history import Replay
from tests.unit.test_replay_orchestrators import respond, start_input

ORCHESTRATORS = index(function_app.app).orchestrators


def stored_before_the_rename(caps: dict[str, Any], **renamed: Any) -> dict[str, Any]:
    """A deep research input as an older release wrote it: ``renamed`` under old keys."""
    stored = start_input("deep_research", run_deep_search_first=False)
    for old, new in renamed.items():
        stored["caps"][old] = stored["caps"].pop(new)
    stored["caps"].update(caps)
    return stored


@pytest.mark.parametrize(
    ("former", "name"), [("num_agents", "max_agents"), ("supervisor_max_iterations", "queue_turns")]
)
def test_caps_read_a_limit_under_its_former_name(former: str, name: str) -> None:
    assert getattr(Caps.model_validate({former: 2}), name) == 2
    assert former not in Caps().model_dump()  # written under the new name only


def test_a_run_started_with_num_agents_in_its_caps_keeps_its_agent_limit() -> None:
    stored = stored_before_the_rename(
        {"num_agents": 2, "supervisor_max_iterations": 3, "enable_clarifying_questions": False},
        num_agents="max_agents",
        supervisor_max_iterations="queue_turns",
    )
    caps = StartInput.model_validate(stored).caps
    assert (caps.max_agents, caps.queue_turns) == (2, 3)

    flow = Replay(ORCHESTRATORS[names.DEEP_RESEARCH], stored).start().run_activities(respond)

    plan = next(s for s in flow.scheduled if s.name == names.PLAN_RESEARCH)
    assert plan.input["max_agents"] == 2  # not the default of 4
    assert flow.done and flow.output["status"] == "completed"
