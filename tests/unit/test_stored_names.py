"""Data stored under a field's former name still reads after the rename.

Orchestration inputs (with their ``Caps``) and activity outputs live in the
Durable history and are read again on every replay; a run started before a
deploy wakes up after it. Progress is kept in session documents and in the
Durable custom status. Renaming a field must therefore keep accepting the old
key, or a run in flight would fall back to the defaults (or fail) halfway
through, and a status page would lose its counts.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

import function_app
from api.views import session_view
from devhost.registry import index
from shared.bootstrap import AppServices
from shared.core import names
from shared.core.config import Caps, Settings
from shared.core.research_models import SupervisorReview
from shared.core.session_models import Progress, SessionRecord, StartInput
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


def test_a_run_replaying_outputs_stored_under_sources_counts_them() -> None:
    """Activity outputs an older release recorded: counts and URLs under ``sources``."""

    def recorded_before_the_rename(name: str, request: Any) -> Any:
        out = respond(name, request)
        for new in ("source_count", "source_urls"):
            if new in out:
                out["sources"] = out.pop(new)
        if name == names.GENERATE_FINAL_REPORT:
            out["sources"] = 7
        return out

    stored = start_input(
        "deep_research", run_deep_search_first=False, enable_clarifying_questions=False
    )
    flow = Replay(ORCHESTRATORS[names.DEEP_RESEARCH], stored).start()
    flow.run_activities(recorded_before_the_rename)

    assert flow.done and flow.output["status"] == "completed"
    assert flow.custom_status["source_count"] == 7


def test_a_session_stored_with_sources_shows_its_counts_under_both_names(tmp_path) -> None:
    now = datetime(2025, 1, 2, tzinfo=UTC).isoformat()
    stored = {
        "id": "s1",
        "chat_id": "c1",
        "original_query": "q",
        "mode": "deep_research",
        "instance_id": "s1",
        "status": "completed",
        "progress": {"phase": "completed", "findings": 2, "sources": 3},
        "result": {"report": {"title": "t", "sections": 3, "sources": 2}},
        "created_at": now,
        "updated_at": now,
    }
    svc = AppServices(Settings(data_dir=tmp_path, reasoner="offline", search_provider="local"))

    view = session_view(svc, SessionRecord.model_validate(stored))

    assert view["progress"]["source_count"] == view["progress"]["sources"] == 3
    assert view["result"]["report"]["source_count"] == view["result"]["report"]["sources"] == 2
    assert Progress.model_validate({"sources": 4}).model_dump()["source_count"] == 4


def test_a_review_stored_with_covered_shallow_missing_reads_with_scores() -> None:
    """Supervisor reviews written before ``TopicCompleteness`` kept a three-word status."""
    stored = {
        "decision": "continue",
        "coverage": [
            {"topic_id": 1, "status": "covered", "evidence": "3 key findings"},
            {"topic_id": 2, "status": "shallow", "evidence": "1 key finding"},
            {"topic_id": 3, "status": "missing"},
        ],
    }

    coverage = SupervisorReview.model_validate(stored).coverage

    assert [(c.covered, c.status) for c in coverage] == [
        (True, "covered"),
        (False, "shallow"),
        (False, "missing"),
    ]
    assert coverage[0].score == 1.0 > coverage[1].score > coverage[2].score == 0.0
    assert "status" not in coverage[0].model_dump()  # written in the new shape only
