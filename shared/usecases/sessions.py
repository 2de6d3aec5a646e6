"""Session bookkeeping done by activities and the API: progress, completion, webhooks.

Every write goes through ``SessionStore.update`` (optimistic concurrency), and
is idempotent: a retried activity sets the same fields to the same values and
never appends a chat message or a webhook record twice. A status change that
a webhook reports records that event in the same update
(``webhook_outbox.set_status``); ``notify`` then sends the session's recorded
events in order.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime

from shared.adapters.webhooks import WebhookEvent
from shared.core.errors import ConflictError
from shared.core.payloads import CompleteSessionIn, NotifyIn, UpdateSessionIn
from shared.core.report_models import FinalReport
from shared.core.session_models import ChatMessage, Mode, RunningCall, SessionRecord, SessionStatus
from shared.ports import Services
from shared.usecases.phase_figures import add_figures
from shared.usecases.research.answers import load_answer
from shared.usecases.webhook_outbox import (
    EVENT_BY_STATUS,
    event_id,
    flush,
    record_event,
    request_redelivery,
    set_status,
)


def session_links(svc: Services, session_id: str) -> dict[str, str]:
    base = (svc.settings.public_base_url or "").rstrip("/") + f"/api/research/{session_id}"
    return {
        "status": base,
        "clarification": f"{base}/clarification",
        "cancel": f"{base}/cancel",
        "report": f"{base}/report",
        "pdf": f"{base}/report.pdf",
        "events": f"{base}/events",
    }


def update_session(svc: Services, req: UpdateSessionIn) -> dict:
    """Apply the fields given; returns the stored clarification answers.

    A timed-out wait records no answers, but never erases answers the API
    accepted in the moment the timer fired: the orchestrator uses those.
    """
    deep_search = load_answer(svc, req.deep_search_ref) if req.deep_search_ref else None
    links = session_links(svc, req.session_id)

    def mutate(record: SessionRecord) -> None:
        # A retried update never takes back a plan decision the user made meanwhile.
        decided = record.plan_approval is not None and record.plan_approval.outcome != "waiting"
        if req.plan_approval is not None and not decided:
            record.plan_approval = req.plan_approval
        replan = req.status == SessionStatus.waiting_plan_approval and decided
        if req.status is not None and not replan:
            set_status(record, req.status, links, datetime.now(UTC))
        if req.progress is not None:
            record.progress = req.progress
        if deep_search is not None:
            record.deep_search_result = deep_search
        if req.clarification_questions is not None:
            record.clarification_questions = req.clarification_questions
        if req.clarification_answers:
            record.clarification_answers = req.clarification_answers
        if req.usage is not None:
            record.usage = req.usage

    record = svc.sessions.update(req.session_id, mutate)
    return {"clarification_answers": record.clarification_answers}


def complete_session(svc: Services, req: CompleteSessionIn) -> SessionRecord:
    result: dict = {}
    answer_text = ""
    if req.answer_ref:
        answer = load_answer(svc, req.answer_ref)
        result["answer"] = answer.model_dump(mode="json")
        answer_text = answer.answer
    if req.report_ref:
        session_id, _, name = req.report_ref.partition("/")
        report = FinalReport.model_validate_json(svc.memory.read(session_id, name))
        result["report"] = {
            "title": report.title,
            "sections": len(report.sections),
            "source_count": len(report.sources),
            "sources": len(report.sources),  # deprecated: the former name, for one release
            "confidence_level": report.confidence_level,
            "warnings": report.warnings,
        }
        answer_text = report.executive_summary
    links = session_links(svc, req.session_id)

    def mutate(record: SessionRecord) -> None:
        set_status(record, req.status, links, datetime.now(UTC))
        record.result = result or record.result
        record.final_report_ref = req.report_ref or record.final_report_ref
        record.error = req.error
        record.usage = req.usage
        if req.phases is not None:
            record.phases = req.phases.phases
        if req.progress is not None:
            record.progress = req.progress

    record = svc.sessions.update(req.session_id, mutate)
    if req.report_ref and req.phases is not None:
        add_figures(svc, req.report_ref, req.phases.phases, req.usage)
    if record.mode in (Mode.chat, Mode.search, Mode.deep_search) and answer_text:
        _remember_exchange(svc, record, answer_text)
    return record


def _remember_exchange(svc: Services, record: SessionRecord, answer_text: str) -> None:
    """Add the question and answer to the chat history once, even if retried."""
    recent = svc.sessions.history(record.chat_id, svc.settings.chat_history_limit * 2)
    if any(m.session_id == record.id for m in recent):
        return
    now = datetime.now(UTC)
    question = ChatMessage(
        role="user", content=record.original_query, session_id=record.id, created_at=now
    )
    reply = ChatMessage(
        role="assistant", content=answer_text[:4000], session_id=record.id, created_at=now
    )
    svc.sessions.append_message(record.chat_id, question)
    svc.sessions.append_message(record.chat_id, reply)


def cancel_session(svc: Services, session_id: str) -> SessionRecord:
    """Mark a live session cancelled and record its ``cancelled`` event (ConflictError if over)."""
    links = session_links(svc, session_id)

    def cancel(r: SessionRecord) -> None:
        if not set_status(r, SessionStatus.cancelled, links, datetime.now(UTC)):
            raise ConflictError(f"session {session_id} is already {r.status.value}")

    return svc.sessions.update(session_id, cancel)


def redeliver_last_event(svc: Services, session_id: str) -> tuple[SessionRecord, WebhookEvent, int]:
    """Make the session's last webhook event pending again; the event and the
    redelivery's number (ConflictError if it cannot be, RateLimited if asked too often)."""
    chosen: list[tuple[WebhookEvent, int]] = []
    now = datetime.now(UTC)

    def mark(r: SessionRecord) -> None:
        chosen[:] = [request_redelivery(r, now)]

    record = svc.sessions.update(session_id, mark)
    return record, *chosen[0]


def undo_redelivery(svc: Services, session_id: str, event: WebhookEvent) -> None:
    """Settle ``event`` again with its last record when its redelivery could not be started
    (and give the request back to the rate limit)."""

    def undo(r: SessionRecord) -> None:
        records = [d for d in r.webhook_deliveries if d.get("event_id") == event.id]
        if records and all(d.get("replaced") for d in records):
            records[-1].pop("replaced", None)
            r.webhook_redeliveries.recent = r.webhook_redeliveries.recent[:-1]

    svc.sessions.update(session_id, undo)


def notify(svc: Services, req: NotifyIn) -> dict:
    """Send the session's recorded webhook events in order, up to and past ``req``'s.

    The event was recorded with its status change. A session stored before the
    outbox existed gets it recorded now, but only while the session is still in
    the state the event reports: a late notify never adds a stale event.
    """
    record = svc.sessions.get(req.session_id)
    if not record.callback_url:
        return {"ok": False, "error": "no callback_url"}
    this_event = event_id(req.session_id, req.event)
    if not any(e.get("id") == this_event for e in record.webhook_events):
        if EVENT_BY_STATUS.get(record.status) != req.event:
            return {"ok": False, "error": f"session is {record.status.value}; {req.event} skipped"}
        links = session_links(svc, record.id)

        def late(r: SessionRecord) -> None:
            if EVENT_BY_STATUS.get(r.status) == req.event:
                record_event(r, req.event, links, datetime.now(UTC))

        svc.sessions.update(req.session_id, late)
    return flush(svc.sessions, svc.webhooks, req.session_id, this_event)


def show_running_call(
    svc: Services, session_id: str, model: str, started_at: datetime
) -> Callable[[], None]:
    """Record a slow model call with its session; return what removes it when it ends.

    The id is the activity's own (not a durable one): the entry lives only while
    the call runs, and a retried activity's call is a new call.
    """
    call = RunningCall(id=uuid.uuid4().hex[:12], model=model, started_at=started_at)
    svc.sessions.update(session_id, lambda r: r.model_calls.append(call))

    def clear() -> None:
        def drop(record: SessionRecord) -> None:
            record.model_calls = [c for c in record.model_calls if c.id != call.id]

        svc.sessions.update(session_id, drop)

    return clear
