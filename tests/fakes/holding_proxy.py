"""A loopback TCP proxy that can hold back the reply to one request (or the request itself).

It forwards bytes both ways without reading them (TLS passes through), so the
client talks to the real server. A request is told apart only by its size: the
bytes the client sends before the server next answers. Armed for a size, the
proxy acts on the first request over it:

- ``hold``: the request reaches the server (which does the work and answers),
  the answer never reaches the client, which times out: "the write landed but
  the client saw a timeout". ``landed`` is set when the server's answer arrives.
- ``drop``: the request stops at the proxy (the server sees an incomplete
  request and does nothing), the client times out: "the write never landed".

Either way the connection is closed when the client gives up on it.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Literal

Action = Literal["hold", "drop"]
CHUNK = 65536


class HoldingProxy:
    def __init__(self, upstream_port: int) -> None:
        self._upstream = ("127.0.0.1", upstream_port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._armed: tuple[Action, int] | None = None
        self._sockets: list[socket.socket] = []
        self.triggered = threading.Event()  # a request matched and was held or dropped
        self.landed = threading.Event()  # the server answered a held request
        threading.Thread(target=self._accept, name="holding-proxy", daemon=True).start()

    def arm(self, action: Action, min_request_bytes: int) -> None:
        """Act on the next request of more than ``min_request_bytes`` (once)."""
        with self._lock:
            self._armed = (action, min_request_bytes)
            self.triggered.clear()
            self.landed.clear()

    def close(self) -> None:
        self._listener.close()
        with self._lock:
            for sock in self._sockets:
                _close(sock)

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self._upstream)
            with self._lock:
                self._sockets += [client, upstream]
            _Link(self, client, upstream).start()

    def _match(self, request_bytes: int) -> Action | None:
        with self._lock:
            if self._armed is None or request_bytes <= self._armed[1]:
                return None
            action, self._armed = self._armed[0], None
        self.triggered.set()
        return action


class _Link:
    """One client connection and its upstream twin, pumped by two threads."""

    def __init__(self, proxy: HoldingProxy, client: socket.socket, upstream: socket.socket):
        self.proxy, self.client, self.upstream = proxy, client, upstream
        self.request_bytes = 0
        self.action: Action | None = None

    def start(self) -> None:
        threading.Thread(target=self._requests, daemon=True).start()
        threading.Thread(target=self._replies, daemon=True).start()

    def _requests(self) -> None:
        while data := _recv(self.client):
            if self.action is None:
                self.request_bytes += len(data)
                self.action = self.proxy._match(self.request_bytes)
            if self.action != "drop":
                with contextlib.suppress(OSError):
                    self.upstream.sendall(data)
        _close(self.upstream)  # the client gave up (or finished): end both sides
        _close(self.client)

    def _replies(self) -> None:
        while data := _recv(self.upstream):
            self.request_bytes = 0  # an answer ends the request being counted
            if self.action == "hold":
                self.proxy.landed.set()
                continue
            with contextlib.suppress(OSError):
                self.client.sendall(data)
        if self.action is None:
            _close(self.client)


def _recv(sock: socket.socket) -> bytes:
    try:
        return sock.recv(CHUNK)
    except OSError:
        return b""


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()
