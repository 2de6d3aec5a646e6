"""The researcher queue: agents in parallel, each finding reviewed in turn.

    running = {agent: run_researcher(todo)}          # fan-out, one todo per agent
    loop: done = yield task_any(running)              # the research queue
          review it (while reviews < MAX_SUPERVISOR_CALLS)
          give that agent its next todo, or retire it
    stop scheduling on "finish", on caps or on budget; in-flight agents are
    always awaited, so no finding is lost.

Caps, all from ``Caps``:
- ``max_iterations`` (DEEP_RESEARCH_DEFAULT_MAX_ITERATIONS): researcher runs per session;
- ``agent_max_steps``: the ceiling of a researcher's steps per todo; within it the plan
  says how many the question deserves (``Run.agent_steps``, from the query analysis);
- ``max_supervisor_calls``: reviews; after that agents finish their todos unsupervised;
- ``queue_turns``: queue turns during which the supervisor may still add todos;
- "replan": the pending todos give way to a new plan's, within every cap above and at
  most ``MAX_REPLANS`` times (``orchestrators/replan.py``);
- findings no review read are folded into draft_report.md before the report;
- an agent's question (``ask_supervisor``) waits for the next review, which answers it
  (advice, usually a todo for that agent, within ``queue_turns`` like any new todo);
- two reviews in a row that add nothing while no todo is pending or running force "finish";
- token / cost budget (``orchestrators/budget.py``): a researcher starts only when
  its steps fit beside the researchers in flight and the report's reserve, with
  fewer steps if that is what fits; a review only when it fits too.
"""

from __future__ import annotations

import azure.durable_functions as df

from orchestrators import budget
from orchestrators.common import error_text, outcome, publish, step
from orchestrators.queue_state import Queue, Run
from orchestrators.replan import fold_late_findings, replan
from shared.core import names
from shared.core.payloads import Gap, ResearcherOut, SupervisorIn, SupervisorOut
from shared.core.research_models import AgentProfile, ResearchPlan, Todo
from shared.core.session_models import Usage

IDLE_REVIEWS_TO_FINISH = 2


def research_queue(
    context: df.DurableOrchestrationContext,
    run: Run,
    plan: ResearchPlan,
    profiles: list[AgentProfile],
    todos: list[Todo],
):
    queue = Queue(run, plan, profiles, todos)
    queue.fill(context)
    while queue.running:
        publish(context, run.progress)
        done = yield context.task_any([task for task, _, _ in queue.running.values()])
        agent_id = next(a for a, (task, _, _) in queue.running.items() if task is done)
        _, todo, _ = queue.running.pop(agent_id)
        finding = _envelope(done, agent_id, todo)
        _record(run, queue, finding, todo)
        if finding.ok and _may_review(run, queue):
            yield from _review(context, run, queue, finding)
        queue.fill(context)
    for asked in queue.help_requests:  # no review was left to answer them
        run.progress.warn(
            "supervising", f"agent {asked.agent_id} asked for help on {asked.todo_id}; unanswered"
        )
    run.progress.agents = [a.model_copy(update={"todo": None}) for a in run.progress.agents]
    run.team = [queue.profiles[a] for a in sorted(queue.profiles)]
    run.todos, run.researcher_runs = queue.todos, queue.started
    yield from fold_late_findings(context, run, queue.reviewed)


def _may_review(run: Run, queue: Queue) -> bool:
    if queue.stopped or queue.reviews >= run.caps.max_supervisor_calls:
        return False
    if run.affords(budget.LLM_CALLS_PER_REVIEW, committed=queue.committed()):
        return True
    run.progress.warn("supervising", "supervisor reviews skipped to stay within the budget")
    if not any(g.kind == "budget_reviews_skipped" for g in run.gaps):
        run.gaps.append(Gap(kind="budget_reviews_skipped"))  # the report says so too
    return False


def _envelope(task, agent_id: int, todo: Todo) -> ResearcherOut:
    """A researcher that failed (after retries, or permanently) becomes an error envelope."""
    return outcome(
        names.RUN_RESEARCHER,
        task.result,
        ResearcherOut,
        lambda error, used: ResearcherOut(
            ok=False,
            agent_id=agent_id,
            todo_id=todo.id,
            topic_id=todo.topic_id,
            error=error,
            usage=used,
        ),
    )


def _record(run: Run, queue: Queue, finding: ResearcherOut, todo: Todo) -> None:
    queue.turns += 1
    todo.status = "done" if finding.ok else "failed"
    run.usage += finding.usage
    if finding.ok and finding.item_ref:
        run.finding_refs.append(finding.item_ref)
        queue.read_by_topic.setdefault(todo.topic_id, set()).update(finding.source_urls)
        run.progress.findings += 1
        run.progress.source_count += len(finding.source_urls)
    elif finding.error:
        gap = Gap(
            kind="agent_failed", agent_id=finding.agent_id, topic=todo.topic, error=finding.error
        )
        run.gaps.append(gap)
        run.progress.warn(
            "researching", f"agent {finding.agent_id} failed on {todo.topic!r}: {finding.error}"
        )
    if finding.help is not None:  # answered at the supervisor's next review
        queue.help_requests.append(finding.help)
    for agent in run.progress.agents:
        if agent.id == finding.agent_id:
            agent.done += 1
            agent.steps += finding.steps


def _review(
    context: df.DurableOrchestrationContext, run: Run, queue: Queue, finding: ResearcherOut
):
    run.progress.phase = "supervising"
    queue.reviews += 1
    run.progress.supervisor_calls = queue.reviews
    request = SupervisorIn(
        context=run.context,
        plan=queue.plan,
        finding_ref=finding.item_ref or "",
        finding_refs=run.finding_refs,
        todos=queue.todos,
        calls_left=run.caps.max_supervisor_calls - queue.reviews,
        review_n=queue.reviews,
        help_requests=queue.help_requests,
    )
    try:
        out = yield from step(context, names.SUPERVISOR_REVIEW, request)
        review = SupervisorOut.model_validate(out)
    except Exception as exc:  # a failed review never stops the research
        run.usage += getattr(exc, "usage", None) or Usage()
        run.progress.warn("supervising", f"review {queue.reviews} failed: {error_text(exc)}")
        run.progress.phase = "researching"
        return
    run.usage += review.usage
    queue.reviewed.add(request.finding_ref)
    queue.help_requests = [h for h in queue.help_requests if h.todo_id not in review.answered]
    replanned = review.decision == "replan" and (yield from replan(context, run, queue, review))
    if not replanned:
        queue.add_todos(review)
    # Planned or running todos count as progress: only a supervisor that adds nothing
    # while no other work is left is idle (so review order cannot cut planned work).
    waiting = any(t.status in ("pending", "in_progress") for t in queue.todos)
    changed = bool(review.new_todos or review.answered) or review.decision == "replan" or waiting
    queue.idle_reviews = 0 if changed else queue.idle_reviews + 1
    if review.decision == "finish" or queue.idle_reviews >= IDLE_REVIEWS_TO_FINISH:
        queue.stopped = True
    run.progress.phase = "researching"
