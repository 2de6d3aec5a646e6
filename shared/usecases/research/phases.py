"""The deep research phases before the researchers run: clarify, plan, spawn agents.

Effort scales with the query (``QueryAnalysis``): a simple fact gets one agent,
a comparison two to four, a complex question up to ``DEEP_RESEARCH_NUM_AGENTS``;
each researcher takes the analysis' ``recommended_steps`` per todo, at least
``MIN_AGENT_STEPS`` (a search, a read and the decision to stop: fewer cannot
read anything) and at most ``DEEP_RESEARCH_AGENT_MAX_STEPS``, the ceiling.
Planning first reads the period the question asks about (``time_range.py``):
the analysis and the plan see it, and the orchestrator keeps it in the research
context, so every researcher search and every later prompt gets it too. The
same question asked again in a chat reuses its decomposition
(``decompositions.py``): no analysis or planning call.
"""

from __future__ import annotations

from datetime import UTC, datetime

from shared.core.limits import NUM_AGENTS
from shared.core.payloads import (
    ClarifyOut,
    ContextIn,
    PlanResearchIn,
    PlanResearchOut,
    SpawnAgentsIn,
    SpawnAgentsOut,
)
from shared.core.research_models import Todo
from shared.ports import Services
from shared.usecases.research import decompositions, memory_files
from shared.usecases.research.memory_files import PlannedResearch
from shared.usecases.research.time_range import extract_time_range

MAX_TOPICS = 6
AGENTS_BY_COMPLEXITY = {"simple": 1, "moderate": 3, "complex": NUM_AGENTS.le}
MIN_AGENT_STEPS = 3  # the spec's floor: simple fact-finding takes 3-10 tool calls


def clarify(svc: Services, req: ContextIn) -> ClarifyOut:
    asked = svc.reasoner.clarify(req.context)
    return ClarifyOut(needed=asked.needed and bool(asked.questions), questions=asked.questions[:5])


def plan_research(svc: Services, req: PlanResearchIn) -> PlanResearchOut:
    planned, reused = _decompose(svc, req)
    analysis, plan = planned.analysis, planned.plan
    req.context.time_range = planned.time_range
    wanted = analysis.recommended_agents
    if analysis.query_type == "comparison":
        wanted = min(max(wanted, 2), 4)
    else:
        wanted = max(wanted, AGENTS_BY_COMPLEXITY[analysis.complexity])
    num_agents = max(1, min(wanted, req.max_agents, len(plan.topics)))
    steps = max(analysis.recommended_steps, MIN_AGENT_STEPS)
    agent_steps = steps if req.max_steps is None else min(steps, req.max_steps)
    memory_files.write_main(svc.memory, req.context, plan)
    memory_files.write_analysis(svc.memory, req.context.session_id, planned)
    memory_files.write_headers(svc.memory, req.context)
    return PlanResearchOut(
        analysis=analysis,
        plan=plan,
        num_agents=num_agents,
        agent_steps=agent_steps,
        time_range=planned.time_range,
        reused=reused,
    )


def _decompose(svc: Services, req: PlanResearchIn) -> tuple[PlannedResearch, bool]:
    """The time range, analysis and plan: an earlier session's of this chat, or new."""
    earlier = decompositions.earlier_decomposition(svc, req.chat_id, req.context)
    if earlier is not None:
        return earlier, True
    reasoner, context = svc.reasoner, req.context
    if context.time_range is None:
        today = datetime.now(UTC).date()
        context.time_range = extract_time_range(reasoner, context.query, today)
    analysis = reasoner.analyze(context)
    plan = reasoner.plan(context, analysis, MAX_TOPICS)
    plan.topics = plan.topics[:MAX_TOPICS]
    key = decompositions.question_key(context)
    planned = PlannedResearch(
        analysis=analysis, plan=plan, question_key=key, time_range=context.time_range
    )
    return planned, False


def spawn_agents(svc: Services, req: SpawnAgentsIn) -> SpawnAgentsOut:
    """Profiles for ``num_agents`` agents; topics dealt round-robin, by priority."""
    profiles = svc.reasoner.agent_profiles(req.context, req.plan, req.num_agents)[: req.num_agents]
    for number, profile in enumerate(profiles, start=1):
        profile.agent_id = number
    topics = sorted(req.plan.topics, key=lambda t: (t.priority, t.id))
    todos = [
        Todo(
            id=f"todo-{k}",
            agent_id=profiles[(k - 1) % len(profiles)].agent_id,
            topic_id=topic.id,
            topic=topic.title,
            queries=topic.queries,
            instruction=topic.rationale or topic.title,
        )
        for k, topic in enumerate(topics, start=1)
    ]
    for profile in profiles:
        mine = [t for t in todos if t.agent_id == profile.agent_id]
        memory_files.write_agent(svc.memory, req.context.session_id, profile, mine)
    return SpawnAgentsOut(profiles=profiles, todos=todos)
