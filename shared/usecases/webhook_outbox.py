"""The webhook outbox: a session's events are recorded when they happen and sent in order.

Why: one session's events come from different places (the orchestrator sends
``clarification_requested``, ``completed`` and ``failed``; the cancel API sends
``cancelled`` through its own small orchestration), and each used to be sent
by its own ``notify`` activity. A cancel that raced the clarification notify
could deliver ``cancelled`` first, and a notify lost with a terminated
instance was never sent at all.

How:

1. :func:`record_event` appends the event's body to the session document
   (``webhook_events``) inside the same ETag update as the status change it
   reports, with the next ``sequence`` (1, 2, 3… per session). The sequence is
   therefore the order in which the changes were stored; the body's ``status``
   and ``occurred_at`` are the session's at that moment. Idempotent by event id
   (``{session_id}:{event}``): a retried activity records nothing twice.
2. :func:`flush` (the ``notify`` activity) sends every recorded event that has
   no delivery record yet, lowest sequence first, until none is left, so a late
   or lost earlier notify can neither reorder nor drop anything. One sender per
   session at a time: it holds ``webhook_lease`` (ETag update, renewed after
   every event) and gives it up only in an update that sees nothing pending. A
   second notify that finds the lease taken waits until its own event is
   settled (the holder sends it too) or the lease expires (the holder died),
   then takes over.
3. Each event gets one series of the sender's retries; its delivery record
   (ok or not) settles it and it is never sent after a later event. A gap in
   ``sequence`` at a receiver means an event that could not be delivered; the
   session's status URL has the current state, and its ``webhook`` summary
   (:func:`delivery_summary`) the last attempt and its error.
4. A user may ask for the session's last event again (:func:`request_redelivery`):
   its delivery record is marked ``replaced``, which makes it pending, and a
   notify sends it once more. Only the last event, so the order still holds.
   At most :data:`REDELIVERY_LIMIT` per :data:`REDELIVERY_WINDOW` per session
   (``RateLimited``, HTTP 429, beyond), and the document keeps at most
   :data:`MAX_DELIVERY_RECORDS` delivery records: the current one of each event
   always, the newest replaced ones with what is left. A Cosmos DB item has a
   2 MB ceiling, and a receiver that keeps failing must not walk a session up to it.

Delivery is at least once: a sender that dies between the POST and recording
it leaves the event pending, and it is sent again once its lease expires. The
event id (``webhook-id``) stays the same, on redeliveries too, so receivers
drop duplicates.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from shared.adapters.stores.base import SessionStore
from shared.adapters.webhooks import TYPE_PREFIX, WebhookEvent, WebhookEventName, WebhookSender
from shared.core.errors import ConflictError, RateLimited
from shared.core.session_models import SessionRecord, SessionStatus
from shared.usecases.access import public_chat_id

log = logging.getLogger(__name__)

EVENT_BY_STATUS: dict[SessionStatus, WebhookEventName] = {
    SessionStatus.waiting_clarification: "clarification_requested",
    SessionStatus.waiting_plan_approval: "plan_ready",
    SessionStatus.completed: "completed",
    SessionStatus.failed: "failed",
    SessionStatus.cancelled: "cancelled",
}
# Longer than one event's delivery (the sender's 15 s budget) plus store round trips.
LEASE_SECONDS = 45.0
POLL_SECONDS = 0.2
MAX_WAIT_SECONDS = 300.0
# Redeliveries a user may ask for per session and window; each one is a Durable
# instance and a delivery series against the receiver.
REDELIVERY_LIMIT = 5
REDELIVERY_WINDOW = timedelta(hours=1)
# One current record per event (five events at most) plus the newest replaced ones.
MAX_DELIVERY_RECORDS = 10

Clock = Callable[[], datetime]


def event_id(session_id: str, event: str) -> str:
    """The stable id of a session's event (each event happens at most once per session)."""
    return f"{session_id}:{event}"


def record_event(
    record: SessionRecord, event: WebhookEventName, links: dict[str, str], now: datetime
) -> None:
    """Append ``event`` to the outbox; call it inside the update that makes the change.

    Does nothing without a ``callback_url`` or when the event is already there.
    """
    if not record.callback_url:
        return
    wanted = event_id(record.id, event)
    if any(e.get("id") == wanted for e in record.webhook_events):
        return
    sequence = max((int(e.get("sequence", 0)) for e in record.webhook_events), default=0) + 1
    body = WebhookEvent(
        id=wanted,
        event=event,
        sequence=sequence,
        session_id=record.id,
        chat_id=public_chat_id(record.chat_id),
        status=record.status.value,
        links=links,
        occurred_at=now.isoformat(),
    )
    record.webhook_events.append(body.model_dump(mode="json"))


def set_status(
    record: SessionRecord, status: SessionStatus, links: dict[str, str], now: datetime
) -> bool:
    """Move a live session to ``status`` and record the event it reports, if any.

    A terminal session keeps its status (and records nothing). True when the
    status was applied.
    """
    if record.status.is_terminal:
        return False
    record.status = status
    event = EVENT_BY_STATUS.get(status)
    if event is not None:
        record_event(record, event, links, now)
    return True


def flush(
    sessions: SessionStore,
    sender: WebhookSender,
    session_id: str,
    own_event_id: str,
    clock: Clock = lambda: datetime.now(UTC),
) -> dict:
    """Send the session's pending events in order; return the result for ``own_event_id``."""
    owner = uuid.uuid4().hex  # a lease token, not a stored id: each attempt is its own sender
    deadline = time.monotonic() + MAX_WAIT_SECONDS
    while True:
        record = sessions.get(session_id)
        if not any(e.get("id") == own_event_id for e in record.webhook_events):
            return {"ok": False, "error": f"event {own_event_id} was not recorded"}
        delivery = _delivery(record, own_event_id)
        if delivery is not None:
            return {"ok": bool(delivery.get("ok")), "attempts": delivery.get("attempts", 0)}
        if _lease_free(record, clock()):
            record = sessions.update(session_id, lambda r: _take_lease(r, owner, clock()))
            if _holds(record, owner):
                record = _drain(sessions, sender, record, owner, clock)
                continue  # own event is settled now (or the lease was lost: look again)
        if time.monotonic() > deadline:
            return {"ok": False, "error": "another sender kept the webhook outbox busy"}
        time.sleep(POLL_SECONDS)


def _drain(
    sessions: SessionStore,
    sender: WebhookSender,
    record: SessionRecord,
    owner: str,
    clock: Clock,
) -> SessionRecord:
    """Send pending events until none is left and the lease is given back (or lost)."""
    while _holds(record, owner):
        pending = pending_events(record)
        if not pending:
            record = sessions.update(record.id, lambda r: _release_if_idle(r, owner))
            continue
        event = WebhookEvent.model_validate(pending[0])
        delivery = sender.deliver(record.callback_url or "", event) | {"sequence": event.sequence}
        record = sessions.update(
            record.id, lambda r, sent=delivery: _settle(r, sent, owner, clock())
        )
    return record


def pending_events(record: SessionRecord) -> list[dict]:
    """Recorded events without a (current) delivery record, in sequence order."""
    settled = {d.get("event_id") for d in record.webhook_deliveries if not d.get("replaced")}
    waiting = [e for e in record.webhook_events if e.get("id") not in settled]
    return sorted(waiting, key=lambda e: int(e.get("sequence", 0)))


def request_redelivery(record: SessionRecord, now: datetime) -> tuple[WebhookEvent, int]:
    """Make the session's last event pending again; call it inside a session update.

    Returns the event and the redelivery's number (1, 2, 3… per session, for
    its instance id). ConflictError when there is nothing to send again: no
    callback URL, no event yet, or the last event still waiting for its
    (re)delivery; RateLimited past :data:`REDELIVERY_LIMIT` in the window.
    """
    if not record.callback_url:
        raise ConflictError(f"session {record.id} has no callback_url")
    if not record.webhook_events:
        raise ConflictError(f"session {record.id} has no webhook event yet")
    last = WebhookEvent.model_validate(
        max(record.webhook_events, key=lambda e: int(e.get("sequence", 0)))
    )
    current = _delivery(record, last.id)
    if current is None:
        raise ConflictError(f"event {last.id} is being delivered already")
    asked = record.webhook_redeliveries
    asked.recent = [t for t in asked.recent if t > now - REDELIVERY_WINDOW]
    if len(asked.recent) >= REDELIVERY_LIMIT:
        raise _too_many(record.id, asked.recent, now)
    # Sessions stored before the counter existed numbered by their replaced records.
    asked.count = max(asked.count, _replaced_count(record)) + 1
    asked.recent.append(now)
    current["replaced"] = True
    return last, asked.count


def _too_many(session_id: str, recent: list[datetime], now: datetime) -> RateLimited:
    window = int(REDELIVERY_WINDOW.total_seconds())
    retry_after = (min(recent) + REDELIVERY_WINDOW - now).total_seconds()
    return RateLimited(
        f"session {session_id}: at most {REDELIVERY_LIMIT} webhook redeliveries per "
        f"{window // 60} minutes; try again in {max(1, round(retry_after))} s",
        retry_after=retry_after,
        details=[
            {
                "limit": "webhook_redeliveries",
                "max": REDELIVERY_LIMIT,
                "window_seconds": window,
                "used": len(recent),
            }
        ],
    )


def _replaced_count(record: SessionRecord) -> int:
    return sum(1 for d in record.webhook_deliveries if d.get("replaced"))


def delivery_summary(record: SessionRecord) -> dict:
    """What the session status shows of its webhook: counts and the last attempt."""
    current = [d for d in record.webhook_deliveries if not d.get("replaced")]
    last = record.webhook_deliveries[-1] if record.webhook_deliveries else None
    return {
        "events": len(record.webhook_events),
        "delivered": sum(1 for d in current if d.get("ok")),
        "failed": sum(1 for d in current if not d.get("ok")),
        "pending": len(pending_events(record)),
        "last_attempt": None
        if last is None
        else {
            "event_id": last.get("event_id"),
            "type": TYPE_PREFIX + str(last.get("event")),
            "attempts": last.get("attempts", 0),
            "ok": bool(last.get("ok")),
            "status_code": last.get("status_code"),
            "error": last.get("error"),
            "at": last.get("delivered_at"),
        },
    }


def _delivery(record: SessionRecord, wanted: str) -> dict | None:
    """The current delivery record of event ``wanted`` (a replaced one no longer counts)."""
    return next(
        (
            d
            for d in record.webhook_deliveries
            if d.get("event_id") == wanted and not d.get("replaced")
        ),
        None,
    )


def _lease_free(record: SessionRecord, now: datetime) -> bool:
    lease = record.webhook_lease
    return lease is None or datetime.fromisoformat(lease["expires_at"]) <= now


def _holds(record: SessionRecord, owner: str) -> bool:
    return (record.webhook_lease or {}).get("owner") == owner


def _take_lease(record: SessionRecord, owner: str, now: datetime) -> None:
    if _lease_free(record, now) and pending_events(record):
        _renew(record, owner, now)


def _renew(record: SessionRecord, owner: str, now: datetime) -> None:
    expires = now + timedelta(seconds=LEASE_SECONDS)
    record.webhook_lease = {"owner": owner, "expires_at": expires.isoformat()}


def _release_if_idle(record: SessionRecord, owner: str) -> None:
    """Give the lease back unless an event arrived meanwhile (then keep draining)."""
    if _holds(record, owner) and not pending_events(record):
        record.webhook_lease = None


def _settle(record: SessionRecord, delivery: dict, owner: str, now: datetime) -> None:
    """Keep the delivery record (once per event) and renew the lease if still ours."""
    if _delivery(record, delivery["event_id"]) is None:
        record.webhook_deliveries = kept_deliveries([*record.webhook_deliveries, delivery])
    if _holds(record, owner):
        _renew(record, owner, now)


def kept_deliveries(deliveries: list[dict]) -> list[dict]:
    """``deliveries`` cut to :data:`MAX_DELIVERY_RECORDS`, oldest replaced records first.

    A current record is never dropped: without it its event would be pending
    and sent again.
    """
    excess = len(deliveries) - MAX_DELIVERY_RECORDS
    if excess <= 0:
        return deliveries
    replaced = [i for i, d in enumerate(deliveries) if d.get("replaced")]
    dropped = set(replaced[:excess])
    return [d for i, d in enumerate(deliveries) if i not in dropped]
