"""Standard Webhooks deliveries against a real local receiver (tests/fakes/webhook_receiver.py).

Every signature is checked with the reference verifier (``standardwebhooks``),
as a receiver would, never with our own code.
"""

from __future__ import annotations

import base64
import ssl
import time

import httpx
import pytest
import trustme
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from shared.adapters.webhooks import WebhookEvent, WebhookSender, validate_callback_url
from shared.core.config import Settings
from shared.core.errors import ConfigurationError, InvalidInputError
from tests.fakes.scripted_network import LoopbackNetwork, ScriptedResolver
from tests.fakes.webhook_receiver import (  # noqa: F401
    WebhookReceiver,
    closed_port_url,
    webhook_receiver_fixture,
)

SECRET = "whsec_" + base64.b64encode(b"k" * 32).decode()
NEW_SECRET = "whsec_" + base64.b64encode(b"n" * 32).decode()


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
        occurred_at="2025-01-02T03:04:05+00:00",
    )


def test_delivery_follows_standard_webhooks_and_verifies(webhook_receiver: WebhookReceiver):
    record = WebhookSender(_settings()).deliver(webhook_receiver.url, _event())

    assert record == record | {"ok": True, "attempts": 1, "status_code": 204, "event_id": "evt-1"}
    [request] = webhook_receiver.requests
    assert request.headers["Content-Type"] == "application/json"
    assert request.headers["webhook-id"] == "evt-1"
    assert abs(int(request.headers["webhook-timestamp"]) - time.time()) < 60
    assert request.headers["webhook-signature"].startswith("v1,")
    payload = Webhook(SECRET).verify(request.body, request.headers)
    assert payload == {
        "type": "research.completed",
        "timestamp": "2025-01-02T03:04:05+00:00",
        "version": 1,
        "data": {
            "event_id": "evt-1",
            "sequence": 3,
            "session_id": "sess-1",
            "chat_id": "chat-1",
            "status": "completed",
            "links": {"report": "http://127.0.0.1:7071/api/research/sess-1/report"},
        },
    }
    assert not any(name.lower().startswith("x-deepresearch") for name in request.headers)


def test_a_rotated_secret_signs_with_both_until_the_old_one_goes(
    webhook_receiver: WebhookReceiver,
):
    WebhookSender(_settings(f"{NEW_SECRET} {SECRET}")).deliver(webhook_receiver.url, _event())
    WebhookSender(_settings(NEW_SECRET)).deliver(webhook_receiver.url, _event("evt-2"))
    during, after = webhook_receiver.requests

    assert len(during.headers["webhook-signature"].split(" ")) == 2
    assert Webhook(SECRET).verify(during.body, during.headers)["data"]["event_id"] == "evt-1"
    assert Webhook(NEW_SECRET).verify(during.body, during.headers)
    assert Webhook(NEW_SECRET).verify(after.body, after.headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(SECRET).verify(after.body, after.headers)  # the old secret is retired


def test_tampered_body_wrong_secret_or_changed_headers_fail_verification(
    webhook_receiver: WebhookReceiver,
):
    WebhookSender(_settings()).deliver(webhook_receiver.url, _event())
    [request] = webhook_receiver.requests
    tampered = request.body.replace(b'"completed"', b'"cancelled"', 1)
    later = dict(request.headers) | {"webhook-timestamp": str(int(time.time()) + 1)}
    other_id = dict(request.headers) | {"webhook-id": "evt-other"}
    stale = dict(request.headers) | {"webhook-timestamp": str(int(time.time()) - 3600)}

    assert tampered != request.body
    for body, headers, secret in (
        (tampered, request.headers, SECRET),
        (request.body, request.headers, NEW_SECRET),
        (request.body, later, SECRET),
        (request.body, other_id, SECRET),
        (request.body, stale, SECRET),
    ):
        with pytest.raises(WebhookVerificationError):
            Webhook(secret).verify(body, headers)


@pytest.mark.parametrize(
    "secret",
    [
        "plain-text-secret",  # not whsec_
        "whsec_not*base64",
        "whsec_" + base64.b64encode(b"short").decode(),  # under 24 bytes
        f"{SECRET}, plain-second",
    ],
)
def test_a_malformed_secret_is_a_configuration_error_naming_the_setting(secret: str):
    with pytest.raises(ConfigurationError, match="WEBHOOK_SECRET"):
        WebhookSender(_settings(secret))


def test_retries_after_server_errors_then_succeeds(webhook_receiver: WebhookReceiver):
    webhook_receiver.fail_first = 2
    sender = WebhookSender(_settings(), backoff_seconds=0.05)

    record = sender.deliver(webhook_receiver.url, _event("evt-retry"))

    assert record["ok"] is True
    assert record["attempts"] == 3
    deliveries = {r.headers["webhook-id"] for r in webhook_receiver.requests}
    assert deliveries == {"evt-retry"}  # same id on every retry, so receivers can dedupe
    for request in webhook_receiver.requests:  # each attempt signed afresh, each verifies
        assert Webhook(SECRET).verify(request.body, request.headers)


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
    [request] = webhook_receiver.requests
    assert "webhook-signature" not in request.headers
    assert request.headers["webhook-id"] == "evt-1"


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
