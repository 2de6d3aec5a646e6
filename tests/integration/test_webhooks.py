"""Signed webhooks against a real local receiver (tests/fakes/webhook_receiver.py)."""

from __future__ import annotations

import hashlib
import hmac
import json
import ssl
import time

import httpx
import pytest
import trustme

from shared.config import Settings
from shared.errors import InvalidInputError
from shared.webhooks import WebhookEvent, WebhookSender, sign, validate_callback_url, verify
from tests.fakes.scripted_network import LoopbackNetwork, ScriptedResolver
from tests.fakes.webhook_receiver import (  # noqa: F401
    WebhookReceiver,
    closed_port_url,
    webhook_receiver_fixture,
)

SECRET = "s3cret-for-tests"


def _settings(secret: str | None = SECRET) -> Settings:
    return Settings(webhook_secret=secret, webhook_allowed_hosts="127.0.0.1, localhost")


def _event(event_id: str = "evt-1", name: str = "completed") -> WebhookEvent:
    return WebhookEvent(
        id=event_id,
        event=name,
        sequence=3,
        session_id="sess-1",
        chat_id="chat-1",
        status="completed",
        links={"report": "http://127.0.0.1:7071/api/research/sess-1/report"},
        occurred_at="2025-01-02T03:04:05Z",
    )


def readme_verify(secret: str, headers: dict[str, str], body: bytes) -> bool:
    """What the README tells receivers to do (kept independent of shared.webhooks)."""
    timestamp = headers["X-DeepResearch-Timestamp"]
    signature = headers["X-DeepResearch-Signature"]
    if abs(time.time() - int(timestamp)) > 300:
        return False
    expected = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return hmac.compare_digest("sha256=" + expected.hexdigest(), signature)


def test_delivery_is_signed_and_verifiable_by_a_receiver(webhook_receiver: WebhookReceiver):
    record = WebhookSender(_settings()).deliver(webhook_receiver.url, _event())

    assert record["ok"] is True
    assert record["attempts"] == 1
    assert record["status_code"] == 204
    assert record["event_id"] == "evt-1"
    [request] = webhook_receiver.requests
    headers = request.headers
    assert headers["Content-Type"] == "application/json"
    assert headers["X-DeepResearch-Event"] == "completed"
    assert headers["X-DeepResearch-Delivery"] == "evt-1"
    assert readme_verify(SECRET, headers, request.body)
    assert verify(
        SECRET,
        headers["X-DeepResearch-Timestamp"],
        request.body,
        headers["X-DeepResearch-Signature"],
    )
    payload = json.loads(request.body)
    assert payload["event"] == "completed"
    assert payload["session_id"] == "sess-1"
    assert set(payload) == {
        "id",
        "event",
        "sequence",
        "session_id",
        "chat_id",
        "status",
        "links",
        "occurred_at",
    }


def test_tampered_body_or_wrong_secret_fails_verification(webhook_receiver: WebhookReceiver):
    WebhookSender(_settings()).deliver(webhook_receiver.url, _event())
    [request] = webhook_receiver.requests
    ts = request.headers["X-DeepResearch-Timestamp"]
    signature = request.headers["X-DeepResearch-Signature"]
    tampered = request.body.replace(b'"completed"', b'"cancelled"', 1)

    assert tampered != request.body
    assert not readme_verify(SECRET, request.headers, tampered)
    assert not verify(SECRET, ts, tampered, signature)
    assert not verify("another-secret", ts, request.body, signature)
    assert not verify(SECRET, str(int(ts) + 1), request.body, signature)


def test_stale_timestamp_is_refused_even_with_a_valid_signature():
    body = b'{"id": "x"}'
    old = str(int(time.time()) - 3600)
    signature = sign(SECRET, old, body)

    assert verify(SECRET, old, body, signature, now=int(old) + 10)
    assert not verify(SECRET, old, body, signature)
    assert not verify(SECRET, "not-a-number", body, signature)


def test_retries_after_server_errors_then_succeeds(webhook_receiver: WebhookReceiver):
    webhook_receiver.fail_first = 2
    sender = WebhookSender(_settings(), backoff_seconds=0.05)

    record = sender.deliver(webhook_receiver.url, _event("evt-retry"))

    assert record["ok"] is True
    assert record["attempts"] == 3
    deliveries = {r.headers["X-DeepResearch-Delivery"] for r in webhook_receiver.requests}
    assert deliveries == {"evt-retry"}  # same id on every retry, so receivers can dedupe
    last = webhook_receiver.requests[-1]
    assert readme_verify(SECRET, last.headers, last.body)


def test_client_error_is_not_retried(webhook_receiver: WebhookReceiver):
    webhook_receiver.fail_first = 10
    webhook_receiver.fail_status = 400

    record = WebhookSender(_settings(), backoff_seconds=0.05).deliver(
        webhook_receiver.url, _event()
    )

    assert record == record | {"ok": False, "attempts": 1, "status_code": 400}
    assert len(webhook_receiver.requests) == 1


def test_receiver_that_is_down_fails_quickly_without_raising():
    started = time.monotonic()

    record = WebhookSender(_settings()).deliver(closed_port_url(), _event())

    elapsed = time.monotonic() - started
    assert record["ok"] is False
    assert record["attempts"] == 4
    assert record["status_code"] is None
    assert "Connect" in record["error"]
    assert elapsed < 20  # bounded retries: backoff 0.5 + 1 + 2 s here


def test_slow_receiver_is_given_up_on_within_the_budget(webhook_receiver: WebhookReceiver):
    webhook_receiver.delay = 2.0
    sender = WebhookSender(_settings(), read_timeout=0.2, backoff_seconds=0.05, budget_seconds=1.0)
    started = time.monotonic()

    record = sender.deliver(webhook_receiver.url, _event())

    assert record["ok"] is False
    assert "Timeout" in record["error"]
    assert time.monotonic() - started < 2.0


def test_without_a_secret_deliveries_are_unsigned(webhook_receiver: WebhookReceiver):
    record = WebhookSender(_settings(secret=None)).deliver(webhook_receiver.url, _event())

    assert record["ok"] is True
    assert "X-DeepResearch-Signature" not in webhook_receiver.requests[0].headers


def test_sender_refuses_a_private_url_without_sending():
    record = WebhookSender(Settings(webhook_secret=SECRET)).deliver(
        "http://10.0.0.1/hook", _event()
    )

    assert record["ok"] is False
    assert record["attempts"] == 1
    assert "refused" in record["error"]


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/hook",
        "file:///etc/passwd",
        "ftp://example.com/hook",
        "http://127.0.0.1:9/hook",
    ],
)
def test_callback_url_validation_refuses_unsafe_urls(url: str):
    with pytest.raises(InvalidInputError) as caught:
        validate_callback_url(url, allowed_hosts=())

    assert caught.value.details[0]["loc"] == ["callback_url"]


def test_callback_url_validation_accepts_an_allowed_local_host(webhook_receiver: WebhookReceiver):
    validate_callback_url(webhook_receiver.url, allowed_hosts=["127.0.0.1"])
    validate_callback_url("http://localhost:8080/hook", allowed_hosts=["localhost"])


# -- DNS rebinding: the sender connects to the address the guard checked -------------

PUBLIC = "93.184.216.34"  # stands for the receiver's real host; played by a loopback server
REBINDING = {"hooks.example": [[PUBLIC], ["127.0.0.1"]]}  # public first, loopback after


@pytest.fixture
def public_and_internal():
    """Two loopback receivers: the real (public) receiver and a service on the machine."""
    public, internal = WebhookReceiver().start(), WebhookReceiver().start()
    try:
        yield public, internal
    finally:
        public.stop()
        internal.stop()


def _network(resolver: ScriptedResolver, public: WebhookReceiver, internal: WebhookReceiver):
    return LoopbackNetwork(resolver, {PUBLIC: public.port, "127.0.0.1": internal.port})


def test_a_rebinding_name_is_delivered_to_the_checked_address_only(public_and_internal):
    public, internal = public_and_internal
    resolver = ScriptedResolver(REBINDING)
    network = _network(resolver, public, internal)
    sender = WebhookSender(Settings(webhook_secret=SECRET), resolver=resolver, network=network)

    record = sender.deliver("http://hooks.example/hook", _event())

    assert record["ok"] is True
    assert internal.requests == []  # the loopback service never saw the webhook
    [request] = public.requests
    assert request.headers["Host"] == "hooks.example"  # still addressed to the real name
    assert resolver.lookups == ["hooks.example"]  # one lookup: checked and connected
    assert network.connections == [(PUBLIC, 80, "hooks.example")]


def test_the_test_network_does_follow_a_rebinding_when_asked_by_name(public_and_internal):
    """Control: without the pin, the second lookup would reach the loopback service."""
    public, internal = public_and_internal
    resolver = ScriptedResolver(REBINDING)
    resolver("hooks.example", 80)  # the guard's lookup
    with httpx.Client(transport=_network(resolver, public, internal)) as unpinned:
        unpinned.post("http://hooks.example/hook", content=b"{}")

    assert len(internal.requests) == 1 and public.requests == []


@pytest.mark.parametrize(
    "answers",
    [[["127.0.0.1"]], [[PUBLIC, "127.0.0.1"]], [["169.254.169.254"]], [["::ffff:10.0.0.1"]]],
)
def test_a_name_answering_a_private_address_is_refused_without_connecting(
    public_and_internal, answers
):
    public, internal = public_and_internal
    resolver = ScriptedResolver({"hooks.example": answers})
    network = _network(resolver, public, internal)
    sender = WebhookSender(Settings(webhook_secret=SECRET), resolver=resolver, network=network)

    record = sender.deliver("http://hooks.example/hook", _event())

    assert record["ok"] is False and record["attempts"] == 1
    assert record["error"].startswith("refused")
    assert network.connections == []
    assert public.requests == [] and internal.requests == []


def test_each_retry_checks_again_and_stays_pinned(public_and_internal):
    public, internal = public_and_internal
    public.fail_first = 1  # 500, then OK: two attempts, two lookups
    resolver = ScriptedResolver({"hooks.example": [[PUBLIC], [PUBLIC], ["127.0.0.1"]]})
    network = _network(resolver, public, internal)
    sender = WebhookSender(
        Settings(webhook_secret=SECRET), resolver=resolver, network=network, backoff_seconds=0.01
    )

    record = sender.deliver("http://hooks.example/hook", _event())

    assert record["ok"] is True and record["attempts"] == 2
    assert resolver.lookups == ["hooks.example", "hooks.example"]
    assert [c[0] for c in network.connections] == [PUBLIC, PUBLIC]
    assert internal.requests == []


def test_a_pinned_https_delivery_still_verifies_the_receivers_hostname():
    """Pinned to an IP, TLS still checks the certificate against the callback's host name."""
    ca = trustme.CA()
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("hooks.example").configure_cert(server_tls)
    trust = ssl.create_default_context()
    ca.configure_trust(trust)
    receiver = WebhookReceiver(tls=server_tls).start()
    try:
        resolver = ScriptedResolver({"hooks.example": [[PUBLIC]], "other.example": [[PUBLIC]]})
        network = LoopbackNetwork(resolver, {PUBLIC: receiver.port}, verify=trust)
        sender = WebhookSender(
            Settings(webhook_secret=SECRET),
            resolver=resolver,
            network=network,
            backoff_seconds=0.01,
            max_attempts=1,
        )

        right = sender.deliver("https://hooks.example/hook", _event())
        wrong = sender.deliver("https://other.example/hook", _event("evt-2"))
    finally:
        receiver.stop()

    assert right["ok"] is True
    assert [r.headers["Host"] for r in receiver.requests] == ["hooks.example"]
    # Same address, a name the certificate does not cover: the handshake fails.
    assert wrong["ok"] is False and "CERTIFICATE_VERIFY_FAILED" in wrong["error"]
    assert network.connections == [(PUBLIC, 443, "hooks.example"), (PUBLIC, 443, "other.example")]
