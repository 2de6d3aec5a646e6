"""A webhook receiver follows deep research runs started through devhost.

Real pieces only: devhost runs function_app, the receiver is a stdlib HTTP
server on loopback, every delivery is checked with the reference Standard
Webhooks verifier (``standardwebhooks``), as a receiver would.
"""

from __future__ import annotations

import base64
import json
import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from shared.bootstrap import AppServices
from shared.core.config import Settings
from shared.core.session_models import SessionRecord
from shared.usecases.webhook_outbox import REDELIVERY_LIMIT, REDELIVERY_WINDOW
from tests.fakes.webhook_receiver import ReceivedRequest, WebhookReceiver, closed_port_url

pytestmark = pytest.mark.e2e

SECRET = "whsec_" + base64.b64encode(b"receiver-shared-secret-32-bytes!").decode()
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


def verified(request: ReceivedRequest) -> dict:
    """The body, once the reference verifier accepted the request (it raises otherwise)."""
    return Webhook(SECRET).verify(request.body, request.headers)


def events(receiver: WebhookReceiver) -> list[str]:
    """The event of every request, each verified first: an unsigned one fails the test."""
    return [verified(r)["type"].removeprefix("research.") for r in list(receiver.requests)]


def session(host, session_id: str) -> SessionRecord:
    return AppServices(host.settings).sessions.get(session_id)


def test_a_receiver_follows_clarification_and_completion(host, client, webhook_receiver):
    session_id = start(client, AMBIGUOUS_QUERY, webhook_receiver.url)

    wait_for(
        "clarification_requested", lambda: "clarification_requested" in events(webhook_receiver)
    )
    asked = verified(webhook_receiver.requests[0])["data"]
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
    bodies = [verified(r) for r in received]
    assert [b["data"]["sequence"] for b in bodies] == [1, 2]
    deliveries = Counter(r.headers["webhook-id"] for r in received)
    assert set(deliveries.values()) == {1}, deliveries
    for request, body in zip(received, bodies, strict=True):
        assert request.headers["webhook-id"] == body["data"]["event_id"]
        assert set(body) == {"type", "timestamp", "version", "data"} and body["version"] == 1
    done = bodies[-1]["data"]
    assert done["status"] == "completed"
    assert done["links"]["report"].endswith(f"/api/research/{session_id}/report")
    # What an attacker would change: the body, or the signature's secret.
    tampered = received[-1].body.replace(b'"completed"', b'"failed"')
    assert tampered != received[-1].body
    with pytest.raises(WebhookVerificationError):
        Webhook(SECRET).verify(tampered, received[-1].headers)
    other = "whsec_" + base64.b64encode(b"an-attackers-secret-of-32-bytes!").decode()
    with pytest.raises(WebhookVerificationError):
        Webhook(other).verify(received[-1].body, received[-1].headers)
    assert [d["ok"] for d in session(host, session_id).webhook_deliveries] == [True, True]
    summary = client.get(f"/api/research/{session_id}").json()["webhook"]
    assert summary == summary | {"events": 2, "delivered": 2, "failed": 0, "pending": 0}
    assert summary["last_attempt"]["type"] == "research.completed"


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
    """What a receiver keeps after dropping duplicates by webhook-id (each one verified)."""
    seen: dict[str, dict] = {}
    for request in list(receiver.requests):
        seen.setdefault(request.headers["webhook-id"], verified(request))
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
    bodies = [verified(r)["data"] for r in webhook_receiver.requests]
    assert [(b["sequence"], b["status"]) for b in bodies] == [
        (1, "waiting_clarification"),
        (2, "cancelled"),
    ]
    assert webhook_receiver.requests[-1].headers["webhook-id"] == f"{session_id}:cancelled"
    assert status_of(client, session_id) == "cancelled"


def test_a_cancel_during_the_clarification_delivery_is_sent_after_it(host, client):
    """The race made deterministic: the receiver holds the first webhook until the cancel is in."""
    receiver = WebhookReceiver(hold_first=True).start()
    try:
        session_id = start(client, AMBIGUOUS_QUERY, receiver.url, run_deep_search_first=False)
        [held] = receiver.wait_for(1, TIMEOUT)
        assert verified(held)["type"] == "research.clarification_requested"

        cancelled = client.post(f"/api/research/{session_id}/cancel")
        assert cancelled.status_code == 202, cancelled.text
        receiver.release()
        receiver.wait_for(2, TIMEOUT)
        notifier = host.engine.wait(f"{session_id}:notify-cancelled", TIMEOUT)
        assert notifier is not None and notifier.terminal
        record = settled_outbox(host, session_id, 2)

        kept = unique_bodies(receiver)
        assert [(b["type"], b["data"]["sequence"]) for b in kept] == [
            ("research.clarification_requested", 1),
            ("research.cancelled", 2),
        ]
        assert kept[0]["data"]["status"] == "waiting_clarification"
        [cancel] = [r for r in receiver.requests if verified(r)["type"] == "research.cancelled"]
        assert cancel.answered_before >= 1  # sent only after the clarification was answered
        assert [d["event"] for d in record.webhook_deliveries] == [
            "clarification_requested",
            "cancelled",
        ]
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
        assert {r.headers["webhook-id"] for r in slow.requests} == {f"{slow_id}:completed"}
        assert all(verified(r) for r in slow.requests)
    finally:
        slow.stop()


def test_a_failed_delivery_shows_in_the_status_and_is_sent_again_on_request(host, client):
    """The receiver fails every attempt of the first series (HTTP 500), then is fixed."""
    receiver = WebhookReceiver(fail_first=4, fail_status=500).start()
    try:
        options = {"run_deep_search_first": False, "enable_clarifying_questions": False}
        session_id = start(client, CLEAR_QUERY, receiver.url, **options)
        host.engine.wait(session_id, TIMEOUT)
        failed = wait_for(
            "the failed delivery in the status",
            lambda: (
                (v := client.get(f"/api/research/{session_id}").json())["webhook"]["failed"] and v
            ),
        )
        last = failed["webhook"]["last_attempt"]
        attempts = len(receiver.requests)

        again = client.post(f"/api/research/{session_id}/webhook/redeliver")
        busy = client.post(f"/api/research/{session_id}/webhook/redeliver")
        assert again.status_code == 202, again.text
        host.engine.wait(f"{session_id}:redeliver-completed-1", TIMEOUT)
        if busy.status_code == 202:  # the first one was already done: a second series ran
            host.engine.wait(f"{session_id}:redeliver-completed-2", TIMEOUT)
        fixed = client.get(f"/api/research/{session_id}").json()["webhook"]

        assert failed["status"] == "completed"  # the receiver's trouble is not the run's
        assert last == last | {"type": "research.completed", "ok": False, "status_code": 500}
        assert last["error"] == "HTTP 500" and last["attempts"] == attempts >= 2
        assert busy.status_code in (202, 409)  # 409 while the first redelivery is on its way
        assert fixed == fixed | {"events": 1, "delivered": 1, "failed": 0, "pending": 0}
        assert fixed["last_attempt"] == fixed["last_attempt"] | {"ok": True, "status_code": 204}
        assert {r.headers["webhook-id"] for r in receiver.requests} == {f"{session_id}:completed"}
        assert all(verified(r)["type"] == "research.completed" for r in receiver.requests)
    finally:
        receiver.stop()


def test_redelivery_needs_a_callback_and_an_event(host, client):
    options = {"run_deep_search_first": False, "enable_clarifying_questions": False}
    body = {"query": CLEAR_QUERY, "mode": "deep_research", "options": options}
    session_id = client.post("/api/research", json=body).json()["session_id"]

    no_callback = client.post(f"/api/research/{session_id}/webhook/redeliver")
    unknown = client.post(f"/api/research/{'f' * 32}/webhook/redeliver")

    assert no_callback.status_code == 409
    assert "callback_url" in no_callback.json()["error"]["message"]
    assert unknown.status_code == 404


def durable_rows_naming(host, session_id: str) -> list[tuple[str, object]]:
    """Every row of devhost's Durable store (all tables, all columns) that names the session."""
    found = []
    with sqlite3.connect(host.settings.data_dir / "devhost.sqlite3") as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            for row in db.execute(f"SELECT * FROM {table}"):  # table names from the schema
                if any(session_id in str(value) for value in row):
                    found.append((table, row[0]))
    return found


def test_redelivery_is_rate_limited_and_delete_leaves_no_instance_behind(host, client):
    """Each redelivery is a Durable instance with the whole input: the user may ask for a
    few per hour, and deleting the session purges them all with the run."""
    receiver = WebhookReceiver().start()
    try:
        options = {"enable_clarifying_questions": False}  # with its deep search sub-run
        session_id = start(client, CLEAR_QUERY, receiver.url, **options)
        assert host.engine.wait(session_id, TIMEOUT) is not None
        settled_outbox(host, session_id, 1)
        for n in range(1, REDELIVERY_LIMIT + 1):
            again = client.post(f"/api/research/{session_id}/webhook/redeliver")
            assert again.status_code == 202, (n, again.text)
            assert host.engine.wait(f"{session_id}:redeliver-completed-{n}", TIMEOUT) is not None
        refused = client.post(f"/api/research/{session_id}/webhook/redeliver")
        started = {i.id for i in host.engine.store.query(prefix=session_id)}

        assert refused.status_code == 429, refused.text
        window = REDELIVERY_WINDOW.total_seconds()
        assert 1 <= int(refused.headers["Retry-After"]) <= window
        error = refused.json()["error"]
        assert error["code"] == "rate_limited" and "redeliveries" in error["message"]
        limit = {"limit": "webhook_redeliveries", "max": REDELIVERY_LIMIT, "window_seconds": window}
        assert error["details"] == [limit | {"used": REDELIVERY_LIMIT}]
        assert len(receiver.requests) == 1 + REDELIVERY_LIMIT  # the refused one sent nothing
        assert started == {
            session_id,
            f"{session_id}:deep-search",
            *(f"{session_id}:redeliver-completed-{n}" for n in range(1, REDELIVERY_LIMIT + 1)),
        }
        assert durable_rows_naming(host, session_id)  # the check below can see them

        assert client.delete(f"/api/research/{session_id}").status_code == 204

        assert durable_rows_naming(host, session_id) == []
        assert host.engine.store.query(prefix=session_id) == []
        assert client.get(f"/api/research/{session_id}").status_code == 404
    finally:
        receiver.stop()


INTERNAL_DETAILS = ("127.0.0.1", "::1", "resolves", "loopback")


def test_refusals_never_say_where_a_callback_host_points(start_devhost, tmp_path: Path):
    """A caller must not learn the internal DNS from the 422 or the delivery error."""
    callback = "http://localhost/hook"  # port 80: the address check is what refuses it
    base = {"data_dir": tmp_path / "data", "reasoner": "offline", "search_provider": "local"}
    trusting = start_devhost(Settings(**base, webhook_allowed_hosts="localhost"))
    with httpx.Client(base_url=trusting.url, timeout=60) as c:
        body = {"query": "What is a Python tuple?", "mode": "chat", "callback_url": callback}
        accepted = c.post("/api/research", json=body)
        assert accepted.status_code in (200, 202), accepted.text
        session_id = accepted.json()["session_id"]
        assert trusting.engine.wait(session_id, TIMEOUT) is not None
        settled_outbox(trusting, session_id, 1)
    trusting.stop()

    strict = start_devhost(Settings(**base))
    with httpx.Client(base_url=strict.url, timeout=60) as c:
        refused = c.post("/api/research", json=body)
        assert c.post(f"/api/research/{session_id}/webhook/redeliver").status_code == 202
        assert strict.engine.wait(f"{session_id}:redeliver-completed-1", TIMEOUT) is not None
        status = c.get(f"/api/research/{session_id}").json()

    assert refused.status_code == 422, refused.text
    assert "'localhost' is not allowed" in refused.json()["error"]["message"]
    error = status["webhook"]["last_attempt"]["error"]
    assert error.startswith("refused") and "'localhost' is not allowed" in error
    for detail in INTERNAL_DETAILS:
        assert detail not in json.dumps(refused.json()), detail
        assert detail not in json.dumps(status["webhook"]), detail
