"""A real HTTP webhook receiver for tests: stdlib server on 127.0.0.1, a free port, a thread.

It records every request (headers and raw body) and can misbehave on
purpose: answer the first ``fail_first`` requests with ``fail_status``, sleep
``delay`` seconds before answering, or (``hold_first``) keep the first request
waiting until the test calls ``release()``, to make a race deterministic.
``wait_for(n)`` blocks until n requests have arrived (no polling). Use the
``webhook_receiver`` fixture, or ``closed_port_url()`` for a receiver that is down.
"""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


@dataclass
class ReceivedRequest:
    path: str
    headers: dict[str, str]
    body: bytes
    answered_before: int = 0  # requests already answered when this one arrived


@dataclass
class WebhookReceiver:
    fail_first: int = 0
    fail_status: int = 500
    delay: float = 0.0
    hold_first: bool = False
    tls: ssl.SSLContext | None = None  # serve https with this server context
    requests: list[ReceivedRequest] = field(default_factory=list)
    answered: int = 0
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None
    _arrived: threading.Condition = field(default_factory=threading.Condition)
    _released: threading.Event = field(default_factory=threading.Event)

    def wait_for(self, count: int, timeout: float = 60.0) -> list[ReceivedRequest]:
        """Block until ``count`` requests arrived; AssertionError after ``timeout``."""
        with self._arrived:
            if not self._arrived.wait_for(lambda: len(self.requests) >= count, timeout):
                raise AssertionError(f"{len(self.requests)} of {count} webhook(s) arrived")
            return list(self.requests)

    def release(self) -> None:
        """Let a request held by ``hold_first`` be answered."""
        self._released.set()

    @property
    def url(self) -> str:
        assert self._server is not None, "receiver not started"
        host, port = self._server.server_address[:2]
        return f"{'https' if self.tls else 'http'}://{host}:{port}/hook"

    @property
    def port(self) -> int:
        assert self._server is not None, "receiver not started"
        return int(self._server.server_address[1])

    def start(self) -> WebhookReceiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with receiver._arrived:
                    headers = {k: v for k, v in self.headers.items()}
                    receiver.requests.append(
                        ReceivedRequest(self.path, headers, body, receiver.answered)
                    )
                    index = len(receiver.requests)
                    failing = index <= receiver.fail_first
                    receiver._arrived.notify_all()
                if receiver.hold_first and index == 1:
                    receiver._released.wait(60)
                if receiver.delay:
                    threading.Event().wait(receiver.delay)
                status = receiver.fail_status if failing else 204
                with receiver._arrived:
                    receiver.answered += 1
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the sender gave up waiting: that is what slow tests provoke

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        if self.tls is not None:  # a failed handshake is dropped quietly (OSError in accept)
            self._server.socket = self.tls.wrap_socket(self._server.socket, server_side=True)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._released.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)


def closed_port_url() -> str:
    """A loopback URL on a port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/hook"


@pytest.fixture(name="webhook_receiver")
def webhook_receiver_fixture() -> Iterator[WebhookReceiver]:
    """A started receiver, stopped after the test (import this name to use ``webhook_receiver``)."""
    receiver = WebhookReceiver().start()
    try:
        yield receiver
    finally:
        receiver.stop()
