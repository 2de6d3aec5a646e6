"""Plan approval: the user's decision on a deep research plan, kept where the run reads it.

With ``require_plan_approval`` a deep research stops after planning (status
``waiting_plan_approval``) and shows its plan: topics, their queries and how
many agents will research them. Then:

1. The API (HTTP route or MCP tool) records the user's decision in the session
   with :func:`decide`: ``approved``, or ``edited`` with the new plan (topics
   added, removed or reworded, fewer agents), validated against the caps
   first. Only then does it raise the run's event, so the session always holds
   the decision the run will use.
2. The run waits for that event raced with a timer. Whichever wins, the
   ``record_plan_review`` activity (:func:`record_review`) settles the review
   from the session: a decision stored there wins over the timer (one the API
   accepted just as the timer fired is not lost); otherwise the wait
   ``timed_out``. It writes main.md (the edited plan, and a "Plan review" note)
   and hands the run the plan, the agent count and the sentence the report
   carries.

Cancelling is the ordinary cancel (``api/research.py``): the run is terminated.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field, field_validator

from shared.adapters.report.limits_text import say
from shared.core.errors import ConflictError, InvalidInputError
from shared.core.payloads import ContextIn, PlanReviewOut
from shared.core.research_models import PlanApproval, ResearchPlan, ResearchTopic
from shared.core.session_models import SessionRecord, SessionStatus
from shared.ports import Services
from shared.usecases.research import memory_files
from shared.usecases.research.phases import MAX_TOPICS
from shared.usecases.sessions import session_links
from shared.usecases.webhook_outbox import set_status

MAX_QUERIES = 5
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
REVIEW_ENTRY = "plan-review"


def _text(value: str) -> str:
    if not value.strip():
        raise ValueError("must contain text, not only whitespace")
    if _CONTROL_RE.search(value):
        raise ValueError("must not contain control characters")
    return value.strip()


class TopicEdit(BaseModel):
    """One topic of an edited plan: ``id`` keeps (or rewords) a planned topic; none adds one."""

    model_config = ConfigDict(extra="forbid")

    id: int | None = Field(None, ge=1)
    title: str = Field(min_length=1, max_length=200)
    queries: list[str] | None = Field(None, max_length=MAX_QUERIES)
    priority: int | None = Field(None, ge=1, le=5)

    @field_validator("title")
    @classmethod
    def _title_has_text(cls, value: str) -> str:
        return _text(value)

    @field_validator("queries")
    @classmethod
    def _queries_have_text(cls, value: list[str] | None) -> list[str] | None:
        if value is not None:
            for query in value:
                if len(query) > 300:
                    raise ValueError("each query is at most 300 characters")
            return [_text(q) for q in value]
        return value


def decide(
    svc: Services,
    session_id: str,
    topics: list[TopicEdit] | None = None,
    num_agents: int | None = None,
) -> SessionRecord:
    """Record an approval (no ``topics``/``num_agents``) or an edit, and resume researching.

    ConflictError unless the session waits for its plan's approval;
    InvalidInputError (422) for an edit the caps do not allow.
    """
    edit = topics is not None or num_agents is not None

    def claim(r: SessionRecord) -> None:
        approval = r.plan_approval
        if r.status != SessionStatus.waiting_plan_approval or approval is None:
            raise ConflictError(
                f"session {session_id} is {r.status.value}, not waiting for its plan's approval"
            )
        if edit:
            plan, agents, changes = edited(approval, topics, num_agents)
            approval.plan, approval.num_agents, approval.changes = plan, agents, changes
        approval.outcome = "edited" if edit and approval.changes else "approved"
        approval.decided_at = datetime.now(UTC)
        r.status = SessionStatus.researching

    return svc.sessions.update(session_id, claim)


def undo_decision(svc: Services, session_id: str, original: PlanApproval) -> None:
    """Wait again with the original plan when the run could not be told of the decision."""

    def release(r: SessionRecord) -> None:
        if r.status == SessionStatus.researching and r.plan_approval is not None:
            r.status, r.plan_approval = SessionStatus.waiting_plan_approval, original

    svc.sessions.update(session_id, release)


def edited(
    approval: PlanApproval, topics: list[TopicEdit] | None, num_agents: int | None
) -> tuple[ResearchPlan, int, list[str]]:
    """The plan after the user's edit, the agent count, and what changed, in words.

    ``topics`` omitted keeps the plan's topics (an edit of the agent count only).
    """
    old = {t.id: t for t in approval.plan.topics}
    if topics is None:
        topics = [TopicEdit(id=t.id, title=t.title) for t in old.values()]
    _check_topics(topics, old)
    new_ids = iter(range(max(old, default=0) + 1, 1000))
    new_topics, changes = [], []
    for edit in topics:
        before = old.get(edit.id) if edit.id is not None else None
        topic = _added(edit, next(new_ids)) if before is None else _kept(edit, before)
        changes += _difference(before, topic)
        new_topics.append(topic)
    kept = {e.id for e in topics if e.id is not None}
    changes += [f"removed topic: {t.title}" for tid, t in old.items() if tid not in kept]
    agents = _agents(approval, num_agents, len(new_topics))
    if agents != approval.num_agents:
        changes.append(f"agents: {approval.num_agents} -> {agents}")
    return ResearchPlan(summary=approval.plan.summary, topics=new_topics), agents, changes


def _added(edit: TopicEdit, topic_id: int) -> ResearchTopic:
    """A new topic; without queries of its own it is searched by its title."""
    queries = edit.queries or [edit.title]
    return ResearchTopic(
        id=topic_id, title=edit.title, priority=edit.priority or 1, queries=queries
    )


def _kept(edit: TopicEdit, before: ResearchTopic) -> ResearchTopic:
    """A planned topic as edited; a reworded one without new queries is searched by its title."""
    if edit.queries is not None:
        queries = edit.queries
    else:
        queries = before.queries if edit.title == before.title else [edit.title]
    update = {"title": edit.title, "queries": queries, "priority": edit.priority or before.priority}
    return before.model_copy(update=update)


def _difference(before: ResearchTopic | None, after: ResearchTopic) -> list[str]:
    if before is None:
        return [f"added topic: {after.title}"]
    if before.title != after.title:
        return [f"reworded topic: {before.title} -> {after.title}"]
    if (before.queries, before.priority) != (after.queries, after.priority):
        return [f"changed topic: {after.title}"]
    return []


def _check_topics(edits: list[TopicEdit], old: dict[int, ResearchTopic]) -> None:
    if not 1 <= len(edits) <= MAX_TOPICS:
        raise _invalid(["topics"], f"a plan has 1-{MAX_TOPICS} topics, not {len(edits)}")
    seen: set[int] = set()
    for n, edit in enumerate(edits):
        if edit.id is None:
            continue
        if edit.id not in old:
            raise _invalid(["topics", n, "id"], f"the plan has no topic {edit.id}")
        if edit.id in seen:
            raise _invalid(["topics", n, "id"], f"topic {edit.id} appears twice")
        seen.add(edit.id)


def _agents(approval: PlanApproval, wanted: int | None, topics: int) -> int:
    if wanted is None:
        return max(1, min(approval.num_agents, topics))
    if wanted > approval.max_agents:
        raise _invalid(["num_agents"], f"at most {approval.max_agents} agents for this session")
    if wanted > topics:
        raise _invalid(["num_agents"], f"{wanted} agents for {topics} topic(s): at most one each")
    return wanted


def _invalid(loc: list, message: str) -> InvalidInputError:
    where = ".".join(str(part) for part in loc)
    return InvalidInputError(
        f"invalid plan edit: {where}: {message}",
        details=[{"loc": loc, "msg": message, "type": "value_error"}],
    )


def record_review(svc: Services, req: ContextIn) -> PlanReviewOut:
    """Settle the review after the wait (see the module docstring); idempotent."""
    sid = req.context.session_id
    links = session_links(svc, sid)

    def settle(r: SessionRecord) -> None:
        if r.plan_approval is None:
            raise ConflictError(f"session {sid} has no plan waiting for approval")
        if r.plan_approval.outcome == "waiting":
            r.plan_approval.outcome, r.plan_approval.decided_at = "timed_out", datetime.now(UTC)
        if r.status == SessionStatus.waiting_plan_approval:
            set_status(r, SessionStatus.researching, links, datetime.now(UTC))

    approval = svc.sessions.update(sid, settle).plan_approval
    assert approval is not None
    note = review_note(approval, req.context.language)
    if approval.outcome == "edited":
        memory_files.write_main(svc.memory, req.context, approval.plan)
    svc.memory.append(sid, memory_files.MAIN, REVIEW_ENTRY, f"\n## Plan review\n\n{note}\n")
    return PlanReviewOut(
        outcome=approval.outcome, plan=approval.plan, num_agents=approval.num_agents, note=note
    )


def review_note(approval: PlanApproval, language: str = "en") -> str:
    """The sentence main.md and the report carry about the plan's review, in the report's
    language (the list of changes is quoted as the API recorded it)."""
    if approval.outcome == "approved":
        return say(language, "plan_approved")
    if approval.outcome == "edited":
        return say(language, "plan_edited", changes="; ".join(approval.changes))
    return say(language, "plan_timed_out")
