"""Plan approval: a deep research stops after planning until its user approves, edits or cancels.

Only with ``caps.require_plan_approval`` (``DEEP_RESEARCH_REQUIRE_PLAN_APPROVAL``
or ``options.require_plan_approval``). The plan is recorded in the session
(status ``waiting_plan_approval``), a ``plan_ready`` webhook goes out, and the
run waits for ``PLAN_EVENT`` raced with a timer: nothing runs and nothing is
paid while it waits, and a restarted host resumes the same wait from history.
The timer is cancelled when the decision wins (a live timer would keep the
instance running).

Whoever wins, ``record_plan_review`` settles the review from the session, where
the API recorded the decision before raising the event (``shared/plan_review.py``).
On a timeout the run follows ``plan_approval_timeout_action``: ``proceed`` (the
default) researches the plan as proposed; ``cancel`` ends the session
cancelled, without research or report.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import azure.durable_functions as df

from orchestrators.common import step
from orchestrators.research_queue import Run
from shared import names
from shared.models import PlanApproval
from shared.payloads import ContextIn, NotifyIn, PlanResearchOut, PlanReviewOut, UpdateSessionIn
from shared.session_models import SessionStatus


class PlanNotApproved(Exception):
    """Nobody approved the plan in time and the timeout action is ``cancel``."""


def plan_approval_phase(
    context: df.DurableOrchestrationContext, run: Run, planned: PlanResearchOut
):
    """The plan and agent count to research: as planned, or as the user approved or edited them."""
    if not run.caps.require_plan_approval:
        return planned.plan, planned.num_agents
    deadline = context.current_utc_datetime + timedelta(
        minutes=run.caps.plan_approval_timeout_minutes
    )
    yield from _show(context, run, planned, deadline)
    timer = context.create_timer(deadline)
    decision = context.wait_for_external_event(names.PLAN_EVENT)
    winner = yield context.task_any([decision, timer])
    if winner is decision:
        timer.cancel()
    run.set_phase(context, "planning")
    review = PlanReviewOut.model_validate(
        (yield from step(context, names.RECORD_PLAN_REVIEW, ContextIn(context=run.context)))
    )
    if review.outcome == "timed_out" and run.caps.plan_approval_timeout_action == "cancel":
        raise PlanNotApproved(
            f"nobody approved the plan within {run.caps.plan_approval_timeout_minutes:g} minutes"
        )
    run.context.plan_review = review.note
    return review.plan, review.num_agents


def _show(
    context: df.DurableOrchestrationContext,
    run: Run,
    planned: PlanResearchOut,
    deadline: datetime,
):
    """Record the plan (the status shows it), then tell the caller's webhook."""
    run.set_phase(context, "waiting_plan_approval")
    approval = PlanApproval(
        plan=planned.plan,
        num_agents=planned.num_agents,
        max_agents=run.caps.num_agents,
        deadline=deadline,
    )
    sid = run.inp.session_id
    update = UpdateSessionIn(
        session_id=sid,
        status=SessionStatus.waiting_plan_approval,
        plan_approval=approval,
        progress=run.progress,
        usage=run.usage,
    )
    yield from step(context, names.UPDATE_SESSION, update)
    if run.inp.callback_url:
        yield from step(context, names.NOTIFY, NotifyIn(session_id=sid, event="plan_ready"))
