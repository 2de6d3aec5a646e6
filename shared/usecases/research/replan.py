"""A replan that replans, and findings no review read folded into the draft.

Replan: the supervisor decided the research direction is wrong. The planner
plans again, told why and what the old plan was (``ResearchContext.replan_reason``);
its topics get ids after the old ones (so findings already made keep theirs),
topics already researched are not planned twice, and one todo per new topic, at
most ``max_todos`` (the researcher runs the session has left), is dealt to the
agents round-robin by priority. main.md records the old plan, the new plan and
the reason; analysis.json takes the new plan, so the report names its topics
that went unresearched, not the abandoned ones. The orchestrator drops the
pending todos: the new ones replace them.

Late findings: once the supervisor-call limit is reached agents finish their todos
unsupervised, and the spec wants their results in the draft. Each finding no
review read becomes a draft_report.md section quoting its key findings with
their sources. Entry ids (``replan-N``, ``late-item_N``) make both steps idempotent.
"""

from __future__ import annotations

from shared.core.replan_models import LateFindingsIn, ReplanIn, ReplanOut
from shared.core.research_models import (
    Finding,
    QueryAnalysis,
    ResearchPlan,
    ResearchTopic,
    Todo,
)
from shared.core.session_models import Usage
from shared.ports import Services
from shared.usecases.research import memory_files
from shared.usecases.research.phases import MAX_TOPICS
from shared.usecases.research.supervisor import load_finding


def replan_research(svc: Services, req: ReplanIn) -> ReplanOut:
    """The new plan and its todos; a retried activity returns the plan its first try made."""
    sid = req.context.session_id
    kept = f"replan_{req.replan_n}.json"
    if svc.memory.exists(sid, kept):  # the model may plan differently a second time
        out = ReplanOut.model_validate_json(svc.memory.read_text(sid, kept))
        _record(svc, req, out.plan)  # entries are keyed: nothing is written twice
        _show_todos(svc, req, [*req.todos, *out.todos])
        return out
    out = _replanned(svc, req)
    if out.todos:
        svc.memory.write(sid, kept, out.model_dump_json(), "application/json")
        _record(svc, req, out.plan)
        _show_todos(svc, req, [*req.todos, *out.todos])
    return out


def _replanned(svc: Services, req: ReplanIn) -> ReplanOut:
    old = "\n".join(f"- {t.title}" for t in req.plan.topics)
    done = "\n".join(f"- {t}" for t in req.done_topics) or "- (none)"
    why = f"{req.reason}\n\nPrevious plan:\n{old}\n\nAlready researched:\n{done}"
    context = req.context.model_copy(update={"replan_reason": why})
    planned = memory_files.read_analysis(svc.memory, req.context.session_id)
    # planning wrote analysis.json; without it (an older session) no call is spent on it
    analysis = (
        planned.analysis if planned else QueryAnalysis(query_type="open", complexity="moderate")
    )
    fresh = svc.reasoner.plan(context, analysis, MAX_TOPICS)
    known = {t.casefold() for t in req.done_topics}
    first_id = max(t.id for t in req.plan.topics) + 1
    topics = [t for t in fresh.topics if t.title.casefold() not in known][: req.max_todos]
    topics = [t.model_copy(update={"id": first_id + i}) for i, t in enumerate(topics)]
    if not topics:  # every topic planned was researched already: nothing new to do
        return ReplanOut(plan=req.plan, todos=[], usage=Usage())
    plan = ResearchPlan(summary=fresh.summary, topics=topics)
    todos = [
        Todo(
            id=f"todo-{req.first_todo + k}",
            agent_id=req.agent_ids[k % len(req.agent_ids)],
            topic_id=topic.id,
            topic=topic.title,
            queries=topic.queries,
            instruction=topic.rationale or topic.title,
        )
        for k, topic in enumerate(sorted(topics, key=lambda t: (t.priority, t.id)))
    ]
    return ReplanOut(plan=plan, todos=todos)


def _show_todos(svc: Services, req: ReplanIn, todos: list[Todo]) -> None:
    """Idle agents' files list their dropped and new todos; their notes are kept."""
    sid = req.context.session_id
    for profile in req.idle_profiles:
        mine = [t for t in todos if t.agent_id == profile.agent_id]
        notes = memory_files.agent_notes(svc.memory, sid, profile.agent_id)
        memory_files.write_agent(svc.memory, sid, profile, mine, notes)


def _record(svc: Services, req: ReplanIn, plan: ResearchPlan) -> None:
    sid = req.context.session_id
    entry = (
        f"\n## Replan {req.replan_n} - {memory_files.now_text()}\n\n"
        f"**Reason:** {req.reason.strip() or '(the supervisor gave none)'}\n\n"
        f"**Previous plan:**\n\n{_numbered(req.plan.topics)}\n\n"
        f"**New plan:** {plan.summary}\n\n{_numbered(plan.topics)}\n\n"
    )
    svc.memory.append(sid, memory_files.MAIN, f"replan-{req.replan_n}", entry)
    planned = memory_files.read_analysis(svc.memory, sid)
    if planned is not None:
        planned.plan = plan
        memory_files.write_analysis(svc.memory, sid, planned)


def _numbered(topics: list[ResearchTopic]) -> str:
    """Numbered, not bulleted: main.md's "- " lines after Key Insights are the insights."""
    return "\n".join(f"{n}. {memory_files.topic_line(t)}" for n, t in enumerate(topics, start=1))


def fold_late_findings(svc: Services, req: LateFindingsIn) -> dict:
    for ref in req.finding_refs:
        finding = load_finding(svc, ref)
        section = _section(finding)
        if section:
            name = ref.rpartition("/")[2]
            svc.memory.append(req.session_id, memory_files.DRAFT, f"late-{name}", section)
    return {"ok": True, "folded": len(req.finding_refs)}


def _section(finding: Finding) -> str:
    """The finding's key findings, each with its source, as a draft section."""
    titles = {s.url: s.title or s.url for s in finding.sources}
    lines = [
        f"- {k.text} ([{titles.get(k.source_urls[0], k.source_urls[0])}]({k.source_urls[0]}))"
        for k in finding.key_findings
        if k.source_urls
    ]
    if not lines and not finding.summary.strip():
        return ""
    body = "\n".join(lines) or finding.summary.strip()
    return f"## {finding.topic} - {memory_files.now_text()}\n\n{body}\n\n"
