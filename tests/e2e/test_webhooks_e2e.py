"""A webhook receiver follows deep research runs started through devhost.

Real pieces only: devhost runs function_app, the receiver is a stdlib HTTP
server on loopback, signatures are checked with the verifier a receiver would
use (``shared.webhooks.verify``).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from shared.bootstrap import AppServices
from shared.config import Settings
from shared.models import SessionRecord
from shared.webhooks import verify
from tests.fakes.webhook_receiver import ReceivedRequest, WebhookReceiver, closed_port_url

pytestmark = pytest.mark.e2e

SECRET = "receiver-shared-secret"
AMBIGUOUS_QUERY = "exceptions"  # short: the offline reasoner asks clarifying questions
ANSWER = "How Python raises and handles exceptions with try, except, finally and raise"
CLEAR_QUERY = (
    "How do Python generator functions and the yield expression work compared with "
    "iterators and coroutines?"
)
TIMEOUT = 120.0


@pytest.fixture
def host(start_devhost, tmp_path: Path):
    settings = Settings(
        data_dir=tmp_path / "data",
        reasoner="offline",
        search_provider="local",
        webhook_allowed_hosts="127.0.0.1",
        webhook_secret=SECRET,
    )
    return start_devhost(settings)


@pytest.fixture
def client(host):
    with httpx.Client(base_url=host.url, timeout=60) as c:
        yield c


def wait_for(what: str, probe: Callable[[], object], timeout: float = TIMEOUT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def start(client: httpx.Client, query: str, callback_url: str, **options) -> str:
    body = {
        "query": query,
        "mode": "deep_research",
        "callback_url": callback_url,
        "options": options,
    }
    response = client.post("/api/research", json=body)
    assert response.status_code == 202, response.text
    return response.json()["session_id"]


def status_of(client: httpx.Client, session_id: str) -> str:
    return client.get(f"/api/research/{session_id}").json()["status"]


def events(receiver: WebhookReceiver) -> list[str]:
    return [r.headers["X-DeepResearch-Event"] for r in list(receiver.requests)]


def signed_ok(request: ReceivedRequest, body: bytes | None = None) -> bool:
    return verify(
        SECRET,
        request.headers["X-DeepResearch-Timestamp"],
        request.body if body is None else body,
        request.headers["X-DeepResearch-Signature"],
    )


def session(host, session_id: str) -> SessionRecord:
    return AppServices(host.settings).sessions.get(session_id)


def test_a_receiver_follows_clarification_and_completion(host, client, webhook_receiver):
    session_id = start(client, AMBIGUOUS_QUERY, webhook_receiver.url)

    wait_for(
        "clarification_requested", lambda: "clarification_requested" in events(webhook_receiver)
    )
    asked = json.loads(webhook_receiver.requests[0].body)
    assert asked["session_id"] == session_id
    assert asked["status"] == "waiting_clarification"
    answered = client.post(
        asked["links"]["clarification"].removeprefix(host.url), json={"text": ANSWER}
    )
    assert answered.status_code == 202, answered.text
    wait_for("completed", lambda: "completed" in events(webhook_receiver))
    host.engine.wait(session_id, TIMEOUT)

    received = list(webhook_receiver.requests)
    assert events(webhook_receiver) == ["clarification_requested", "completed"]
    assert [json.loads(r.body)["sequence"] for r in received] == [1, 2]
    deliveries = Counter(r.headers["X-DeepResearch-Delivery"] for r in received)
    assert set(deliveries.values()) == {1}, deliveries
    for request in received:
        body = json.loads(request.body)
        assert request.headers["X-DeepResearch-Delivery"] == body["id"]
        assert request.headers["X-DeepResearch-Event"] == body["event"]
        assert set(body) == {
            "id",
            "event",
            "sequence",
            "session_id",
            "chat_id",
            "status",
            "links",
            "occurred_at",
        }
        assert signed_ok(request)
    done = json.loads(received[-1].body)
    assert done["status"] == "completed"
    assert done["links"]["report"].endswith(f"/api/research/{session_id}/report")
    # What an attacker would change: the body, or the signature's secret.
    tampered = received[-1].body.replace(b'"completed"', b'"failed"')
    assert tampered != received[-1].body
    assert not signed_ok(received[-1], tampered)
    assert not verify(
        "another-secret",
        received[-1].headers["X-DeepResearch-Timestamp"],
        received[-1].body,
        received[-1].headers["X-DeepResearch-Signature"],
    )
    assert [d["ok"] for d in session(host, session_id).webhook_deliveries] == [True, True]


def settled_outbox(host, session_id: str, count: int) -> SessionRecord:
    """The session once ``count`` deliveries are recorded and no sender holds the outbox."""
    return wait_for(
        f"{count} settled webhook(s)",
        lambda: (
            (r := session(host, session_id)).webhook_lease is None
            and len(r.webhook_deliveries) == count
            and r
        ),
    )


def unique_bodies(receiver: WebhookReceiver) -> list[dict]:
    """What a receiver keeps after dropping duplicates by X-DeepResearch-Delivery."""
    seen: dict[str, dict] = {}
    for request in list(receiver.requests):
        seen.setdefault(request.headers["X-DeepResearch-Delivery"], json.loads(request.body))
    return list(seen.values())


def test_a_cancelled_run_sends_cancelled_once(host, client, webhook_receiver):
    session_id = start(client, AMBIGUOUS_QUERY, webhook_receiver.url, run_deep_search_first=False)
    wait_for(
        "the clarification wait", lambda: status_of(client, session_id) == "waiting_clarification"
    )

    # Cancel at once: the run's own clarification notify may not have run yet.
    cancelled = client.post(f"/api/research/{session_id}/cancel")
    assert cancelled.status_code == 202, cancelled.text
    webhook_receiver.wait_for(2, TIMEOUT)
    notifier = host.engine.wait(f"{session_id}:notify-cancelled", TIMEOUT)
    assert notifier is not None and notifier.terminal
    settled_outbox(host, session_id, 2)

    assert events(webhook_receiver) == ["clarification_requested", "cancelled"]
    bodies = [json.loads(r.body) for r in webhook_receiver.requests]
    assert [(b["sequence"], b["status"]) for b in bodies] == [
        (1, "waiting_clarification"),
        (2, "cancelled"),
    ]
    request = webhook_receiver.requests[-1]
    assert request.headers["X-DeepResearch-Delivery"] == f"{session_id}:cancelled"
    assert signed_ok(request)
    assert status_of(client, session_id) == "cancelled"


def test_a_cancel_during_the_clarification_delivery_is_sent_after_it(host, client):
    """The race made deterministic: the receiver holds the first webhook until the cancel is in."""
    receiver = WebhookReceiver(hold_first=True).start()
    try:
        session_id = start(client, AMBIGUOUS_QUERY, receiver.url, run_deep_search_first=False)
        [held] = receiver.wait_for(1, TIMEOUT)
        assert held.headers["X-DeepResearch-Event"] == "clarification_requested"

        cancelled = client.post(f"/api/research/{session_id}/cancel")
        assert cancelled.status_code == 202, cancelled.text
        receiver.release()
        receiver.wait_for(2, TIMEOUT)
        notifier = host.engine.wait(f"{session_id}:notify-cancelled", TIMEOUT)
        assert notifier is not None and notifier.terminal
        record = settled_outbox(host, session_id, 2)

        kept = unique_bodies(receiver)
        assert [(b["event"], b["sequence"]) for b in kept] == [
            ("clarification_requested", 1),
            ("cancelled", 2),
        ]
        assert kept[0]["status"] == "waiting_clarification"
        [cancel] = [
            r for r in receiver.requests if r.headers["X-DeepResearch-Event"] == "cancelled"
        ]
        assert cancel.answered_before >= 1  # sent only after the clarification was answered
        assert [d["event"] for d in record.webhook_deliveries] == [
            "clarification_requested",
            "cancelled",
        ]
        assert all(signed_ok(r) for r in receiver.requests)
    finally:
        receiver.stop()


def test_a_down_or_slow_receiver_does_not_hold_up_or_fail_the_run(host, client):
    slow = WebhookReceiver(delay=8.0).start()  # longer than the sender's 5 s read timeout
    try:
        options = {"run_deep_search_first": False, "enable_clarifying_questions": False}
        down_id = start(client, CLEAR_QUERY, closed_port_url(), **options)
        slow_id = start(client, CLEAR_QUERY, slow.url, **options)

        # Both runs finish, and the slow one is reported completed while its
        # receiver is still sitting on the first webhook.
        for session_id in (down_id, slow_id):
            wait_for(
                f"{session_id} completed",
                lambda sid=session_id: status_of(client, sid) == "completed",
            )
        assert session(host, slow_id).webhook_deliveries == []

        for session_id in (down_id, slow_id):
            records = wait_for(
                f"{session_id} delivery record",
                lambda sid=session_id: session(host, sid).webhook_deliveries,
            )
            [record] = records
            assert record["event"] == "completed"
            assert record["ok"] is False
            assert record["attempts"] >= 2  # retried before giving up
            instance = host.engine.wait(session_id, TIMEOUT)
            assert instance is not None and instance.status == "Completed"
            assert status_of(client, session_id) == "completed"
        assert {r.headers["X-DeepResearch-Delivery"] for r in slow.requests} == {
            f"{slow_id}:completed"
        }
    finally:
        slow.stop()
