"""What clients see of a session: one view shared by status, start, list and SSE.

The session document is the source of truth; while the instance runs, its
live custom status (progress published by the orchestrator at every step)
is merged in, so polling shows agents and counts between phase changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime
from typing import Any

from shared.core.research_models import PlanApproval
from shared.core.session_models import Progress, SessionRecord, SessionStatus
from shared.ports import Services
from shared.usecases.access import public_chat_id
from shared.usecases.research.coverage import topic_sources
from shared.usecases.research.sources import searches_by_source
from shared.usecases.sessions import session_links
from shared.usecases.webhook_outbox import delivery_summary

log = logging.getLogger(__name__)
FAILED_RUNTIME = {"Failed", "Terminated"}


async def live_progress(client, record: SessionRecord) -> tuple[Progress, str | None]:
    """(progress, runtime failure) from the Durable status; the stored progress otherwise."""
    if record.status.is_terminal:
        return record.progress, None
    try:
        status = await client.get_status(record.instance_id)
    except Exception as exc:  # the status endpoint must answer even if Durable does not
        log.warning("durable status unavailable for %s: %s", record.instance_id, exc)
        return record.progress, None
    runtime = getattr(status.runtime_status, "value", None)
    progress = record.progress
    if isinstance(status.custom_status, dict):
        with contextlib.suppress(ValueError):  # a foreign status shape: keep the stored one
            progress = Progress.model_validate(status.custom_status)
    failure = None
    if runtime in FAILED_RUNTIME:
        failure = f"orchestration {runtime.lower()}: {str(status.output)[:300]}"
    return progress, failure


def with_source_count(result: dict[str, Any]) -> dict[str, Any]:
    """A stored result whose report summary predates ``source_count`` gets it.

    ``result.report.sources`` (a count) is deprecated for ``source_count``; both are
    shown for one release, whichever the session document holds.
    """
    report = result.get("report")
    if not isinstance(report, dict) or "source_count" in report or "sources" not in report:
        return result
    return {**result, "report": {**report, "source_count": report["sources"]}}


def session_view(
    svc: Services,
    record: SessionRecord,
    progress: Progress | None = None,
    failure: str | None = None,
) -> dict[str, Any]:
    progress = progress or record.progress
    status = record.status
    if failure and not status.is_terminal:
        status = SessionStatus.failed
    view: dict[str, Any] = {
        "session_id": record.id,
        "instance_id": record.instance_id,
        "chat_id": public_chat_id(record.chat_id),
        "mode": record.mode.value,
        "query": record.original_query,
        "language": record.language,
        "status": status.value,
        "phase": progress.phase,
        "progress": {
            "agents": [a.model_dump(mode="json") for a in progress.agents],
            "findings": progress.findings,
            "source_count": progress.source_count,
            "sources": progress.source_count,  # deprecated: the former name, for one release
            "supervisor_calls": progress.supervisor_calls,
            "iteration": progress.iteration,
            "message": progress.message,
            # the analyst -> critic -> writer stages, "iteration 1/3" and a preview each
            "chain": [c.model_dump(mode="json") for c in progress.chain],
        },
        "warnings": [w.model_dump(mode="json") for w in progress.warnings],
        # what a client branches on: did anything the answer rests on fail or get cut?
        "degraded": bool(progress.warnings or record.error or failure),
        # with collections: which searches rested on them, which on the web too
        "searches_by_source": (
            searches_by_source(svc, record.id) if record.options.collections else None
        ),
        # ... and per topic: the corrective judge's verdict, and what the topic rested on
        "topic_sources": (
            [t.model_dump(mode="json") for t in topic_sources(svc, record.id)]
            if record.options.collections
            else None
        ),
        "usage": record.usage.model_dump(mode="json"),
        "created_at": record.created_at.isoformat(),
        "updated_at": record.updated_at.isoformat(),
        "links": session_links(svc, record.id),
    }
    if record.phases:  # where time and money went, once the run has ended
        view["phases"] = [p.model_dump(mode="json") for p in record.phases]
    if record.source_policy is not None:  # which sources count, and why (the question's word)
        view["source_policy"] = record.source_policy.model_dump(mode="json")
    if record.clarification_questions:
        view["clarification"] = {
            "questions": record.clarification_questions,
            "answers": record.clarification_answers,
        }
    if record.plan_approval is not None:
        view["plan"] = plan_view(record.plan_approval)
    if record.result is not None:
        view["result"] = with_source_count(record.result)
    if record.error or failure:
        view["error"] = record.error or failure
    if record.callback_url:
        view["webhook"] = delivery_summary(record)
    if record.model_calls and not status.is_terminal:
        now = datetime.now(UTC)
        view["model_calls"] = [
            {
                "model": c.model,
                "started_at": c.started_at.isoformat(),
                "running_seconds": round((now - c.started_at).total_seconds()),
            }
            for c in record.model_calls
        ]
    return view


def plan_view(approval: PlanApproval) -> dict[str, Any]:
    """The plan a deep research proposed (or follows, once reviewed) and its review."""
    return {
        "status": approval.outcome,
        "summary": approval.plan.summary,
        "topics": [
            {"id": t.id, "title": t.title, "priority": t.priority, "queries": t.queries}
            for t in approval.plan.topics
        ],
        "num_agents": approval.num_agents,
        "max_agents": approval.max_agents,
        "deadline": approval.deadline.isoformat(),
        "decided_at": approval.decided_at.isoformat() if approval.decided_at else None,
        "changes": approval.changes,
    }


async def current_view(svc: Services, client, session_id: str) -> tuple[SessionRecord, dict]:
    record = await asyncio.to_thread(svc.sessions.get, session_id)
    progress, failure = await live_progress(client, record)
    return record, session_view(svc, record, progress, failure)
