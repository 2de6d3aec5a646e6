"""A deep research's analyst, critic and writer stages on the progress stream: each new
stage is an ``intermediate_result`` event, and its id changes so a resuming client gets it."""

from __future__ import annotations

from api.reports import event_name, state_id


def view(phase: str, chain: list[dict]) -> dict:
    progress = {"agents": [], "findings": 2, "source_count": 5, "supervisor_calls": 1}
    return {"status": "researching", "phase": phase, "progress": {**progress, "chain": chain}}


ANALYSING = {"role": "analyst", "stage": "analyst_analyzing", "iteration": 1, "of": 2}
REVIEWED = {"role": "critic", "stage": "critic_review_complete", "iteration": 1, "of": 3}


def test_a_new_chain_stage_is_an_intermediate_result_event_with_a_new_id() -> None:
    compressing = view("compressing", [])
    analysing = view("analyst_analyzing", [ANALYSING])
    same_phase_new_stage = view("analyst_analyzing", [ANALYSING, ANALYSING])

    assert state_id(analysing) != state_id(compressing)
    assert event_name(analysing, state_id(compressing)) == "intermediate_result"
    assert event_name(same_phase_new_stage, state_id(analysing)) == "intermediate_result"
    assert event_name(view("rendering_pdf", [ANALYSING]), state_id(analysing)) == "phase"
    assert event_name(analysing, None) == "phase"  # a first event says where the run is
    # an id from before the chain existed (seven parts) resumes without an error
    assert event_name(view("critic_reviewing", [REVIEWED]), "researching.x.2.5.1.0.0") == "phase"
