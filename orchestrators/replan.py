"""Two steps of the researcher queue beyond "review and add todos".

Replan (the supervisor's decision "replan": the research direction is wrong):

    pending todos ─► dropped;  replan_research(old plan, reason) ─► new plan + todos
    main.md records the old plan, the new plan and the reason

Bounded three ways: at most ``MAX_REPLANS`` per session; the new todos are at
most the researcher runs left under ``max_iterations``; and a replan starts only
when its plan call and one researcher fit the token / cost budget beside the work
in flight and the report's reserve. A replan refused for any of these (or one
that fails, or finds nothing new) leaves the queue as it was, with a warning:
the supervisor's "replan" then means "continue". Todo ids continue the queue's
count, topic ids the plan's: the same history gives the same ids on replay.

The offline reasoner never decides "replan" (its coverage rule only deepens thin
topics), so only a model's review replans.

Late findings: findings no review read (after the supervisor-call limit, or when
a review was skipped for the budget or failed) are folded into draft_report.md
by one idempotent activity before the report phase, so every finding reaches
the draft.
"""

from __future__ import annotations

import azure.durable_functions as df

from orchestrators import budget
from orchestrators.common import error_text, step
from orchestrators.queue_state import Queue, Run
from shared.core import names
from shared.core.payloads import SupervisorOut
from shared.core.replan_models import LateFindingsIn, ReplanIn, ReplanOut
from shared.core.research_models import Todo
from shared.core.session_models import Usage

MAX_REPLANS = 1  # per session: a second "wrong direction" is a question to rethink, not replan
REPLAN_CALLS = 1  # the plan call (the query analysis is read from analysis.json)


def replan(context: df.DurableOrchestrationContext, run: Run, queue: Queue, review: SupervisorOut):
    """Replace the pending todos with a new plan's; False when the queue stays as it was."""
    runs_left = run.caps.max_iterations - queue.started
    if queue.replans >= MAX_REPLANS:
        return _refused(run, f"at most {MAX_REPLANS} replan(s) per session")
    if runs_left < 1:
        return _refused(run, "no researcher runs are left (max_iterations)")
    if not run.affords(REPLAN_CALLS + budget.RESEARCHER_MIN_CALLS, committed=queue.committed()):
        return _refused(run, f"{budget.BUDGET_NOTE} leaves no room for a new plan")
    queue.replans += 1
    request = ReplanIn(
        context=run.context,
        plan=queue.plan,
        reason=review.notes,
        replan_n=queue.replans,
        agent_ids=sorted(queue.profiles),
        max_todos=runs_left,
        first_todo=len(queue.todos) + 1,
        done_topics=sorted({t.topic for t in queue.todos if t.status == "done"}),
        todos=[_dropped(t) for t in queue.todos],
        idle_profiles=[p for a, p in sorted(queue.profiles.items()) if a not in queue.running],
    )
    try:
        out = ReplanOut.model_validate((yield from step(context, names.REPLAN_RESEARCH, request)))
    except Exception as exc:  # a failed replan never stops the research
        run.usage += getattr(exc, "usage", None) or Usage()
        return _refused(run, f"the replan failed: {error_text(exc)}")
    run.usage += out.usage
    if not out.todos:
        return _refused(run, "the new plan repeated the old one")
    for todo in queue.todos:  # in place: the running entries hold these same objects
        if todo.status == "pending":
            todo.status = "dropped"
    queue.todos.extend(out.todos)
    queue.plan = out.plan
    return True


def _dropped(todo: Todo) -> Todo:
    """A copy for the payload: the queue's own todos change only once the replan succeeded."""
    return todo.model_copy(update={"status": "dropped"}) if todo.status == "pending" else todo


def _refused(run: Run, why: str) -> bool:
    run.progress.warn("supervising", f"the supervisor asked to replan; not replanned: {why}")
    return False


def fold_late_findings(context: df.DurableOrchestrationContext, run: Run, reviewed: set[str]):
    """Put every finding no review read into draft_report.md (no model call, no budget)."""
    late = [ref for ref in run.finding_refs if ref not in reviewed]
    if not late:
        return
    request = LateFindingsIn(session_id=run.inp.session_id, finding_refs=late)
    try:
        yield from step(context, names.FOLD_LATE_FINDINGS, request)
    except Exception as exc:  # the writer still reads every finding; only the draft misses them
        run.progress.warn("researching", f"late findings not added to the draft: {error_text(exc)}")
