"""Session bookkeeping done by activities: progress, completion, webhooks.

Every write goes through ``SessionStore.update`` (optimistic concurrency), and
is idempotent: a retried activity sets the same fields to the same values and
never appends a chat message or a webhook record twice.
"""

from __future__ import annotations

from datetime import UTC, datetime

from shared.answers import load_answer
from shared.bootstrap import Services
from shared.models import ChatMessage, FinalReport, Mode, SessionRecord
from shared.payloads import CompleteSessionIn, NotifyIn, UpdateSessionIn
from shared.webhooks import WebhookEvent


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

    def mutate(record: SessionRecord) -> None:
        if req.status is not None and not record.status.is_terminal:
            record.status = req.status
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
            "sources": len(report.sources),
            "confidence_level": report.confidence_level,
            "warnings": report.warnings,
        }
        answer_text = report.executive_summary

    def mutate(record: SessionRecord) -> None:
        if not record.status.is_terminal:
            record.status = req.status
        record.result = result or record.result
        record.final_report_ref = req.report_ref or record.final_report_ref
        record.error = req.error
        record.usage = req.usage
        if req.progress is not None:
            record.progress = req.progress

    record = svc.sessions.update(req.session_id, mutate)
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


def notify(svc: Services, req: NotifyIn) -> dict:
    record = svc.sessions.get(req.session_id)
    if not record.callback_url:
        return {"ok": False, "error": "no callback_url"}
    if any(d.get("event_id") == req.event_id and d.get("ok") for d in record.webhook_deliveries):
        return {"ok": True, "duplicate": True}
    event = WebhookEvent(
        id=req.event_id,
        event=req.event,
        session_id=record.id,
        chat_id=record.chat_id,
        status=record.status.value,
        links=session_links(svc, record.id),
        occurred_at=datetime.now(UTC).isoformat(),
    )
    delivery = svc.webhooks.deliver(record.callback_url, event)
    svc.sessions.update(req.session_id, lambda r: r.webhook_deliveries.append(delivery))
    return {"ok": bool(delivery.get("ok")), "attempts": delivery.get("attempts", 0)}
