"""The webhook outbox: a session's events reach the receiver once each, in order.

Real pieces: the SQLite session store, the real sender, a stdlib receiver on
loopback. The functions called are the ones the activities and the cancel API
call (``shared.usecases.sessions``); the races are made deterministic with a receiver
that holds the first delivery until the test lets it go.
"""

from __future__ import annotations

import base64
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from standardwebhooks.webhooks import Webhook

from shared.bootstrap import AppServices
from shared.core.config import Settings
from shared.core.errors import ConflictError, RateLimited
from shared.core.payloads import CompleteSessionIn, NotifyIn, UpdateSessionIn
from shared.core.session_models import Mode, SessionRecord, SessionStatus
from shared.usecases import sessions
from shared.usecases.webhook_outbox import (
    MAX_DELIVERY_RECORDS,
    REDELIVERY_LIMIT,
    REDELIVERY_WINDOW,
    pending_events,
    request_redelivery,
)
from tests.fakes.webhook_receiver import WebhookReceiver, webhook_receiver_fixture  # noqa: F401

SID = "sess-outbox"
SECRET = "whsec_" + base64.b64encode(b"outbox-secret-of-thirty-two-byte").decode()


@pytest.fixture
def svc(tmp_path: Path) -> AppServices:
    return AppServices(
        Settings(data_dir=tmp_path, webhook_allowed_hosts="127.0.0.1", webhook_secret=SECRET)
    )


def _create(svc: AppServices, callback_url: str | None) -> SessionRecord:
    now = datetime.now(UTC)
    record = SessionRecord(
        id=SID,
        chat_id="chat-outbox",
        original_query="exceptions",
        mode=Mode.deep_research,
        instance_id=SID,
        callback_url=callback_url,
        created_at=now,
        updated_at=now,
    )
    svc.sessions.create(record)
    return record


def _ask_for_clarification(svc: AppServices) -> None:
    """What the orchestrator's update_session activity does before its notify."""
    sessions.update_session(
        svc,
        UpdateSessionIn(
            session_id=SID,
            status=SessionStatus.waiting_clarification,
            clarification_questions=["Which aspect?"],
        ),
    )


def _notify(svc: AppServices, event: str) -> dict:
    return sessions.notify(svc, NotifyIn(session_id=SID, event=event))


def _bodies(receiver: WebhookReceiver) -> list[dict]:
    """Each request verified as a receiver would, as ``{event, sequence, status, ...}``."""
    bodies = [Webhook(SECRET).verify(r.body, r.headers) for r in receiver.requests]
    return [{"event": b["type"].removeprefix("research."), **b["data"]} for b in bodies]


def test_a_cancel_before_the_clarification_notify_still_sends_both_in_order(
    svc: AppServices, webhook_receiver: WebhookReceiver
):
    _create(svc, webhook_receiver.url)
    _ask_for_clarification(svc)
    sessions.cancel_session(svc, SID)  # the instance is terminated before its notify runs

    assert _notify(svc, "cancelled")["ok"] is True
    late = _notify(svc, "clarification_requested")  # a notify that ran late anyway

    bodies = _bodies(webhook_receiver)
    assert [(b["event"], b["sequence"], b["status"]) for b in bodies] == [
        ("clarification_requested", 1, "waiting_clarification"),
        ("cancelled", 2, "cancelled"),
    ]
    assert late["ok"] is True  # it finds its event already delivered and sends nothing
    assert [r.headers["webhook-id"] for r in webhook_receiver.requests] == [
        f"{SID}:clarification_requested",
        f"{SID}:cancelled",
    ]


def test_a_cancel_racing_an_in_flight_clarification_delivery_keeps_the_order(
    svc: AppServices,
):
    receiver = WebhookReceiver(hold_first=True).start()
    try:
        _create(svc, receiver.url)
        _ask_for_clarification(svc)
        results: dict[str, dict] = {}

        def run(event: str) -> threading.Thread:
            thread = threading.Thread(target=lambda: results.update({event: _notify(svc, event)}))
            thread.start()
            return thread

        clarifying = run("clarification_requested")
        receiver.wait_for(1)  # its delivery is now held at the receiver
        sessions.cancel_session(svc, SID)
        cancelling = run("cancelled")
        receiver.release()
        for thread in (clarifying, cancelling):
            thread.join(60)

        bodies = _bodies(receiver)
        assert [b["event"] for b in bodies] == ["clarification_requested", "cancelled"]
        # cancelled was not sent while clarification_requested was still unanswered
        assert [r.answered_before for r in receiver.requests] == [0, 1]
        assert [b["sequence"] for b in bodies] == [1, 2]
        assert bodies[0]["status"] == "waiting_clarification"  # as it was when it happened
        assert results["clarification_requested"]["ok"] and results["cancelled"]["ok"]
        record = svc.sessions.get(SID)
        assert [(d["event"], d["sequence"], d["ok"]) for d in record.webhook_deliveries] == [
            ("clarification_requested", 1, True),
            ("cancelled", 2, True),
        ]
        assert record.webhook_lease is None  # given back once nothing was pending
    finally:
        receiver.stop()


def test_sequence_numbers_grow_through_a_whole_run_and_retries_send_nothing_twice(
    svc: AppServices, webhook_receiver: WebhookReceiver
):
    _create(svc, webhook_receiver.url)
    _ask_for_clarification(svc)
    _ask_for_clarification(svc)  # a retried activity records nothing twice
    _notify(svc, "clarification_requested")
    _notify(svc, "clarification_requested")
    sessions.update_session(svc, UpdateSessionIn(session_id=SID, status=SessionStatus.researching))
    done = CompleteSessionIn(session_id=SID, status=SessionStatus.completed)
    sessions.complete_session(svc, done)
    sessions.complete_session(svc, done)
    _notify(svc, "completed")
    _notify(svc, "completed")

    bodies = _bodies(webhook_receiver)
    assert [(b["event"], b["sequence"]) for b in bodies] == [
        ("clarification_requested", 1),
        ("completed", 2),
    ]
    assert bodies[1]["status"] == "completed"
    with pytest.raises(ConflictError):
        sessions.cancel_session(svc, SID)  # over: no cancelled event either
    assert len(svc.sessions.get(SID).webhook_events) == 2


def test_an_undeliverable_event_is_not_resent_after_a_later_one(
    svc: AppServices, webhook_receiver: WebhookReceiver
):
    webhook_receiver.fail_first, webhook_receiver.fail_status = 1, 400
    _create(svc, webhook_receiver.url)
    _ask_for_clarification(svc)
    assert _notify(svc, "clarification_requested")["ok"] is False
    sessions.cancel_session(svc, SID)

    assert _notify(svc, "cancelled")["ok"] is True

    # The receiver sees sequence 1 refused by itself, then 2: never 1 after 2.
    assert [(b["event"], b["sequence"]) for b in _bodies(webhook_receiver)] == [
        ("clarification_requested", 1),
        ("cancelled", 2),
    ]


def test_a_dead_senders_lease_expires_and_the_next_notify_takes_over(
    svc: AppServices, webhook_receiver: WebhookReceiver
):
    _create(svc, webhook_receiver.url)
    _ask_for_clarification(svc)
    expired = (datetime.now(UTC) - timedelta(seconds=1)).isoformat()

    def crashed_sender(r: SessionRecord) -> None:
        r.webhook_lease = {"owner": "a-worker-that-died", "expires_at": expired}

    svc.sessions.update(SID, crashed_sender)

    assert _notify(svc, "clarification_requested")["ok"] is True
    assert [b["event"] for b in _bodies(webhook_receiver)] == ["clarification_requested"]


def test_sessions_without_a_callback_record_no_events(svc: AppServices):
    _create(svc, None)
    _ask_for_clarification(svc)
    sessions.cancel_session(svc, SID)

    record = svc.sessions.get(SID)
    assert record.status == SessionStatus.cancelled
    assert record.webhook_events == []
    assert _notify(svc, "cancelled") == {"ok": False, "error": "no callback_url"}


def _cancelled_with_two_events(svc: AppServices, url: str) -> None:
    _create(svc, url)
    _ask_for_clarification(svc)
    assert _notify(svc, "clarification_requested")["ok"] is True
    sessions.cancel_session(svc, SID)
    assert _notify(svc, "cancelled")["ok"] is True


def test_redeliveries_are_limited_per_window_and_the_refusal_says_when_to_retry(
    svc: AppServices, webhook_receiver: WebhookReceiver
):
    _cancelled_with_two_events(svc, webhook_receiver.url)
    numbers = []
    for _ in range(REDELIVERY_LIMIT):
        _record, event, number = sessions.redeliver_last_event(svc, SID)
        numbers.append(number)
        assert _notify(svc, event.event)["ok"] is True

    with pytest.raises(RateLimited) as refused:
        sessions.redeliver_last_event(svc, SID)

    assert numbers == list(range(1, REDELIVERY_LIMIT + 1))  # each one's instance id
    window = REDELIVERY_WINDOW.total_seconds()
    assert window - 60 < refused.value.retry_after <= window
    assert refused.value.details[0]["used"] == REDELIVERY_LIMIT
    assert pending_events(svc.sessions.get(SID)) == []  # the refused one changed nothing
    assert len(webhook_receiver.requests) == 2 + REDELIVERY_LIMIT


def test_redeliveries_over_days_keep_the_document_small_and_lose_no_event(
    svc: AppServices, webhook_receiver: WebhookReceiver
):
    """A receiver that keeps failing, and a user who keeps asking, day after day."""
    _cancelled_with_two_events(svc, webhook_receiver.url)
    start = datetime.now(UTC)
    asked = 3 * MAX_DELIVERY_RECORDS
    for n in range(asked):
        when = start + n * REDELIVERY_WINDOW  # one per window: never rate-limited
        svc.sessions.update(SID, lambda r, when=when: request_redelivery(r, when))
        assert _notify(svc, "cancelled")["ok"] is True

    record = svc.sessions.get(SID)
    assert len(record.webhook_deliveries) == MAX_DELIVERY_RECORDS
    current = [d for d in record.webhook_deliveries if not d.get("replaced")]
    assert [d["event"] for d in current] == ["clarification_requested", "cancelled"]
    assert pending_events(record) == []  # a dropped record never makes its event pending
    assert all("url" not in d for d in record.webhook_deliveries)
    assert record.webhook_redeliveries.count == asked
    assert len(record.webhook_redeliveries.recent) == 1
    assert len(webhook_receiver.requests) == 2 + asked  # the clarification was sent once


def test_a_session_from_before_the_counter_numbers_its_next_redelivery_after_the_old_ones(
    svc: AppServices, webhook_receiver: WebhookReceiver
):
    """Old redeliveries were named by their replaced records: a name is never used twice."""
    _cancelled_with_two_events(svc, webhook_receiver.url)

    def as_stored_before(r: SessionRecord) -> None:  # two redeliveries, no counter
        r.webhook_deliveries = [
            *(dict(r.webhook_deliveries[-1], replaced=True) for _ in range(2)),
            *r.webhook_deliveries,
        ]

    svc.sessions.update(SID, as_stored_before)
    _record, _event, number = sessions.redeliver_last_event(svc, SID)
    assert number == 3
