"""A real HTTP webhook receiver for tests: stdlib server on 127.0.0.1, a free port, a thread.

It records every request (headers and raw body) and can misbehave on
purpose: answer the first ``fail_first`` requests with ``fail_status``, or
sleep ``delay`` seconds before answering. Use the ``webhook_receiver`` fixture,
or ``closed_port_url()`` for a receiver that is down.
"""

from __future__ import annotations

import socket
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


@dataclass
class WebhookReceiver:
    fail_first: int = 0
    fail_status: int = 500
    delay: float = 0.0
    requests: list[ReceivedRequest] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        assert self._server is not None, "receiver not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/hook"

    def start(self) -> WebhookReceiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with receiver._lock:
                    receiver.requests.append(
                        ReceivedRequest(self.path, {k: v for k, v in self.headers.items()}, body)
                    )
                    failing = len(receiver.requests) <= receiver.fail_first
                if receiver.delay:
                    threading.Event().wait(receiver.delay)
                status = receiver.fail_status if failing else 204
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the sender gave up waiting: that is what slow tests provoke

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
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
