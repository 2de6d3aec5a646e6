"""The phase figures and trace tags of a deep research, over replayed histories.

Every delivery replays the orchestrator from its history (``durable_history``);
what it hands the completing activity and each activity must come out of the
orchestration's own clock and results, so it is the same on every replay.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from shared.core import names
from shared.core.phase_models import TRACE_KEY, SessionPhases
from shared.core.session_models import Usage
from tests.unit.test_replay_orchestrators import research, respond, run, start_input

SPENT = Usage(llm_calls=1, prompt_tokens=100, completion_tokens=20, cost=0.0015)


def respond_with_usage(name: str, request: Any) -> Any:
    """The small valid outputs, each reporting one model call where the output has usage."""
    out = respond(name, request)
    if isinstance(out, dict) and "usage" in out:
        out["usage"] = SPENT.model_dump(mode="json")
    return out


def test_phase_figures_add_up_to_the_session_and_each_activity_names_its_phase() -> None:
    flow = research(enable_clarifying_questions=False).run_activities(respond_with_usage)
    assert flow.done and flow.output["status"] == "completed"

    (done,) = [s for s in flow.scheduled if s.name == names.COMPLETE_SESSION]
    phases = SessionPhases.model_validate(done.input["phases"])
    order = [p.phase for p in phases.phases]
    assert order == [
        "planning",
        "researching",
        "compressing",
        "analyst_analyzing",
        "writing_report",
        "critic_reviewing",
    ]
    # contiguous: each phase starts when the one before ended, from the run's start
    assert phases.phases[0].started_at == phases.started_at
    for before, after in zip(phases.phases, phases.phases[1:], strict=False):
        assert before.ended_at == after.started_at
    total = sum(p.seconds for p in phases.phases)
    span = datetime.fromisoformat(str(phases.phases[-1].ended_at)) - phases.started_at
    assert total == span.total_seconds() > 0
    # the usage of the phases is the session's
    usage = Usage.model_validate(done.input["usage"])
    assert usage.llm_calls > 0
    summed = sum((p.usage for p in phases.phases), Usage())
    assert summed == usage
    by_phase = {p.phase: p.usage.llm_calls for p in phases.phases}
    assert by_phase["researching"] >= 2 and by_phase["writing_report"] >= 1

    # every activity is told its session and phase, to join the phase's span
    tags = {s.name: s.input[TRACE_KEY] for s in flow.scheduled if s.kind == "activity"}
    assert tags[names.PLAN_RESEARCH]["phase"] == "planning"
    assert tags[names.RUN_RESEARCHER]["phase"] == "researching"
    assert tags[names.GENERATE_FINAL_REPORT]["phase"] == "writing_report"
    assert tags[names.ANALYZE_FINDINGS]["phase"] == "analyst_analyzing"
    assert tags[names.CRITIQUE_REPORT]["phase"] == "critic_reviewing"
    assert tags[names.COMPLETE_SESSION]["phase"] is None  # after the last phase closed
    assert {t["session_id"] for t in tags.values()} == {"s1"}
    assert all(t["activity"] == name for name, t in tags.items())


def test_the_deep_search_phase_tags_its_sub_orchestration_s_activities() -> None:
    child = start_input("deep_search", run_deep_search_first=True)
    child["as_phase"] = True
    flow = run(names.DEEP_SEARCH, child).run_activities(respond)
    for name in (names.PLAN_QUERIES, names.WEB_SEARCH, names.SYNTHESIZE):
        scheduled = next(s for s in flow.scheduled if s.name == name)
        assert (scheduled.input[TRACE_KEY]["phase"], scheduled.input[TRACE_KEY]["seq"]) == (
            "deep_search",
            1,
        )
    assert flow.done and names.COMPLETE_SESSION not in flow.names_scheduled()


def test_a_search_session_s_phases_add_up_too() -> None:
    flow = run(names.SEARCH, start_input("search")).run_activities(respond_with_usage)
    assert flow.done and flow.output["status"] == "completed"

    (done,) = [s for s in flow.scheduled if s.name == names.COMPLETE_SESSION]
    phases = SessionPhases.model_validate(done.input["phases"])
    # no page was selected (the scripted answer), so nothing was read
    assert [p.phase for p in phases.phases] == ["planning", "searching", "synthesizing"]
    summed = sum((p.usage for p in phases.phases), Usage())
    assert summed == Usage.model_validate(done.input["usage"]) and summed.llm_calls >= 2
    tags = {s.name: s.input[TRACE_KEY]["phase"] for s in flow.scheduled if s.kind == "activity"}
    assert tags[names.PLAN_QUERIES] == "planning" and tags[names.WEB_SEARCH] == "searching"
    assert tags[names.SYNTHESIZE] == "synthesizing"
