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
- two reviews in a row that add nothing while no todo is pending or running force "finish";
- token / cost budget (``orchestrators/budget.py``): a researcher starts only when
  its steps fit beside the researchers in flight and the report's reserve, with
  fewer steps if that is what fits; a review only when it fits too.
"""

from __future__ import annotations

import azure.durable_functions as df

from orchestrators import budget
from orchestrators.common import call, error_text, outcome, publish, step
from shared.core import names
from shared.core.payloads import Gap, ResearcherIn, ResearcherOut, SupervisorIn, SupervisorOut
from shared.core.research_models import AgentProfile, ResearchContext, ResearchPlan, Todo
from shared.core.session_models import Progress, StartInput, Usage

IDLE_REVIEWS_TO_FINISH = 2


class Run:
    """The orchestration's working state (rebuilt identically on every replay)."""

    def __init__(self, inp: StartInput) -> None:
        self.inp = inp
        self.caps = inp.caps
        self.progress = Progress(phase="starting")
        self.usage = Usage()
        self.context = ResearchContext(
            session_id=inp.session_id,
            query=inp.query,
            language=inp.language,
            source_policy=inp.caps.source_policy,
        )
        self.agent_steps = inp.caps.agent_max_steps  # until the plan scales it to the question
        self.finding_refs: list[str] = []
        self.deep_search_ref: str | None = None
        self.gaps: list[Gap] = []  # what could not be researched; the report names each
        self.failure: str | None = None

    def set_phase(self, context: df.DurableOrchestrationContext, phase: str) -> None:
        self.progress.phase = phase
        publish(context, self.progress)

    def affords(
        self, calls: int, *, reserve: int = budget.REPORT_CALLS, committed: int = 0
    ) -> bool:
        return budget.fits(self.caps, self.usage, calls, reserve=reserve, committed=committed)

    def cut(self, what: str, gap: Gap) -> None:
        """The budget stopped work: the report (``gap``, in the reader's language) and the
        status (``what``, in English) both say what was skipped."""
        self.gaps.append(gap)
        self.progress.warn(self.progress.phase, f"{budget.BUDGET_NOTE} was reached: {what}")

    def fail(self, exc: Exception) -> None:
        """A phase failed for good: name it in the status, the warnings and the report."""
        phase, error = self.progress.phase, error_text(exc)
        self.failure = self.failure or f"{phase} failed: {error}"
        self.usage += getattr(exc, "usage", None) or Usage()  # spent before it failed
        self.gaps.append(Gap(kind="phase_failed", phase=phase, error=error))
        self.progress.warn(phase, f"the {phase} phase failed ({error})")


class _Queue:
    def __init__(
        self, run: Run, plan: ResearchPlan, profiles: list[AgentProfile], todos: list[Todo]
    ) -> None:
        self.run, self.plan = run, plan
        self.profiles = {p.agent_id: p for p in profiles}
        self.todos = list(todos)
        self.running: dict[int, tuple[object, Todo, int]] = {}  # agent -> task, todo, calls
        self.read_by_topic: dict[int, set[str]] = {}  # URLs read by finished todos, per topic
        self.started = 0
        self.turns = 0
        self.reviews = 0
        self.idle_reviews = 0
        self.stopped = False

    def pending(self, agent_id: int) -> list[Todo]:
        return [t for t in self.todos if t.agent_id == agent_id and t.status == "pending"]

    def committed(self) -> int:
        """Average calls the researchers in flight will still spend."""
        return sum(calls for _, _, calls in self.running.values())

    def affordable_steps(self) -> int:
        """Steps the next researcher may take (0: none can start)."""
        if self.stopped or self.started >= self.run.caps.max_iterations:
            return 0
        left = budget.calls_left(
            self.run.caps, self.run.usage, reserve=budget.REPORT_CALLS, committed=self.committed()
        )
        steps = self.run.agent_steps
        return steps if left is None else max(0, min(steps, left - 1))

    def launch(self, context: df.DurableOrchestrationContext, agent_id: int, steps: int) -> None:
        todo = self.pending(agent_id)[0]
        todo.status = "in_progress"
        self.started += 1
        mine = [t for t in self.todos if t.agent_id == agent_id]
        request = ResearcherIn(
            context=self.run.context,
            profile=self.profiles[agent_id],
            todo=todo,
            agent_todos=mine,
            max_steps=steps,
            item=f"{names.FINDING_ITEM}{self.started}",
            read_urls=sorted(self.read_by_topic.get(todo.topic_id, ())),
        )
        task = call(context, names.RUN_RESEARCHER, request)
        self.running[agent_id] = (task, todo, steps + 1)
        self._show(agent_id, todo.topic)

    def fill(self, context: df.DurableOrchestrationContext) -> None:
        """Give every idle agent with pending work its next todo, while the budget allows."""
        for agent_id in sorted(self.profiles):
            if agent_id in self.running or not self.pending(agent_id):
                continue
            steps = self.affordable_steps()
            if steps < budget.RESEARCHER_MIN_CALLS - 1:
                self._stop_for_budget()
                return
            self.launch(context, agent_id, steps)

    def _stop_for_budget(self) -> None:
        if self.stopped or self.started >= self.run.caps.max_iterations:
            return
        self.stopped = True
        skipped = sorted({t.topic for t in self.todos if t.status == "pending"})
        if skipped:
            gap = Gap(kind="budget_topics_skipped", topics=skipped)
            self.run.cut(f"not researched: {', '.join(skipped)}", gap)
        else:
            self.run.cut("research stopped", Gap(kind="budget_stopped"))

    def add_todos(self, review: SupervisorOut) -> None:
        if self.turns > self.run.caps.queue_turns:
            return
        topics = {t.id: t.title for t in self.plan.topics}
        for new in review.new_todos:
            agent_id = (
                new.agent_id
                if new.agent_id in self.profiles
                else min(self.profiles, key=lambda a: (len(self.pending(a)), a))
            )
            self.todos.append(
                Todo(
                    id=f"todo-{len(self.todos) + 1}",
                    agent_id=agent_id,
                    topic_id=new.topic_id,
                    topic=topics.get(new.topic_id, new.instruction[:80]),
                    instruction=new.instruction,
                    queries=new.queries,
                )
            )

    def _show(self, agent_id: int, todo: str | None) -> None:
        for agent in self.run.progress.agents:
            if agent.id == agent_id:
                agent.todo = todo


def research_queue(
    context: df.DurableOrchestrationContext,
    run: Run,
    plan: ResearchPlan,
    profiles: list[AgentProfile],
    todos: list[Todo],
):
    queue = _Queue(run, plan, profiles, todos)
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
    run.progress.agents = [a.model_copy(update={"todo": None}) for a in run.progress.agents]


def _may_review(run: Run, queue: _Queue) -> bool:
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


def _record(run: Run, queue: _Queue, finding: ResearcherOut, todo: Todo) -> None:
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
    for agent in run.progress.agents:
        if agent.id == finding.agent_id:
            agent.done += 1
            agent.steps += finding.steps


def _review(
    context: df.DurableOrchestrationContext, run: Run, queue: _Queue, finding: ResearcherOut
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
    queue.add_todos(review)
    # Planned or running todos count as progress: only a supervisor that adds nothing
    # while no other work is left is idle (so review order cannot cut planned work).
    waiting = any(t.status in ("pending", "in_progress") for t in queue.todos)
    changed = bool(review.new_todos) or review.decision == "replan" or waiting
    queue.idle_reviews = 0 if changed else queue.idle_reviews + 1
    if review.decision == "finish" or queue.idle_reviews >= IDLE_REVIEWS_TO_FINISH:
        queue.stopped = True
    run.progress.phase = "researching"
