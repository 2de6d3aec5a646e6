"""The researcher queue's state: the run (usage, progress, findings, gaps) and the queue
(todos, agents in flight, counters), rebuilt identically on every replay.

``orchestrators/research_queue.py`` drives it; ``orchestrators/replan.py`` changes
its plan and todos when the supervisor replans.
"""

from __future__ import annotations

import azure.durable_functions as df

from orchestrators import budget, phase_ledger
from orchestrators.common import call, error_text, publish
from shared.core import names
from shared.core.payloads import Gap, ResearcherIn, SupervisorOut
from shared.core.research_models import (
    AgentProfile,
    HelpRequest,
    ResearchContext,
    ResearchPlan,
    Todo,
)
from shared.core.session_models import Progress, StartInput, Usage


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
        # what the queue leaves for the chain's extra round of searches (analysis_chain.py)
        self.team: list[AgentProfile] = []
        self.todos: list[Todo] = []
        self.researcher_runs = 0
        self.search_rounds = 0

    def set_phase(self, context: df.DurableOrchestrationContext, phase: str) -> None:
        self.progress.phase = phase
        phase_ledger.enter(context, self.inp.session_id, phase, self.usage)
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


class Queue:
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
        self.replans = 0
        self.reviewed: set[str] = set()  # finding refs a review read (the rest fold in late)
        self.help_requests: list[HelpRequest] = []  # agents' questions the next review answers
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
