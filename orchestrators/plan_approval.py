"""Plan approval: a deep research stops after planning until its user approves, edits or cancels.

Only with ``caps.require_plan_approval`` (``DEEP_RESEARCH_REQUIRE_PLAN_APPROVAL``
or ``options.require_plan_approval``). The plan is recorded in the session
(status ``waiting_plan_approval``), a ``plan_ready`` webhook goes out, and the
run waits for ``PLAN_EVENT`` raced with a timer: the wait for a person that
clarification uses too (``orchestrators/person_wait.py``).

Whoever wins, ``record_plan_review`` settles the review from the session, where
the API recorded the decision before raising the event (``shared/usecases/plan_review.py``).
On a timeout the run follows ``plan_approval_timeout_action``: ``proceed`` (the
default) researches the plan as proposed; ``cancel`` ends the session
cancelled, without research or report.
"""

from __future__ import annotations

from datetime import timedelta

import azure.durable_functions as df

from orchestrators.common import step
from orchestrators.person_wait import Ask, wait_for_person
from orchestrators.queue_state import Run
from shared.core import names
from shared.core.payloads import ContextIn, PlanResearchOut, PlanReviewOut, UpdateSessionIn
from shared.core.research_models import PlanApproval
from shared.core.session_models import SessionStatus


class PlanNotApproved(Exception):
    """Nobody approved the plan in time and the timeout action is ``cancel``."""


def plan_approval_phase(
    context: df.DurableOrchestrationContext, run: Run, planned: PlanResearchOut
):
    """The plan and agent count to research: as planned, or as the user approved or edited them."""
    if not run.caps.require_plan_approval:
        return planned.plan, planned.num_agents
    minutes = run.caps.plan_approval_timeout_minutes
    deadline = context.current_utc_datetime + timedelta(minutes=minutes)
    approval = PlanApproval(
        plan=planned.plan,
        num_agents=planned.num_agents,
        max_agents=run.caps.max_agents,
        deadline=deadline,
    )
    ask = Ask(
        phase="waiting_plan_approval",
        record=UpdateSessionIn(
            session_id=run.inp.session_id,
            status=SessionStatus.waiting_plan_approval,
            plan_approval=approval,
            usage=run.usage,
        ),
        notice="plan_ready",
        reply_event=names.PLAN_EVENT,
        deadline=deadline,
    )
    # The decision itself is read from the session below, whoever won the race.
    yield from wait_for_person(context, run, ask)
    run.set_phase(context, "planning")
    review = PlanReviewOut.model_validate(
        (yield from step(context, names.RECORD_PLAN_REVIEW, ContextIn(context=run.context)))
    )
    if review.outcome == "timed_out" and run.caps.plan_approval_timeout_action == "cancel":
        raise PlanNotApproved(f"nobody approved the plan within {minutes:g} minutes")
    run.context.plan_review = review.note
    return review.plan, review.num_agents
