"""A scripted DNS and a network made of loopback servers, for DNS-rebinding tests.

``ScriptedResolver`` is passed where the SSRF guard takes a ``Resolver``; it
answers each name from a script, lookup by lookup, so "a public address first,
127.0.0.1 second" is exactly reproducible. ``LoopbackNetwork`` is passed as the
``network`` under ``PinnedTransport``: it stands for everything below the
HTTP client. Nothing it does leaves 127.0.0.1: an address it has no loopback
server for is a connection error.
"""

from __future__ import annotations

import ipaddress
import ssl

import httpx

from shared.adapters.fetch.guard import IPAddress


class ScriptedResolver:
    """The n-th lookup of a name gets the n-th answer of its script (the last repeats)."""

    def __init__(self, script: dict[str, list[list[str]]]) -> None:
        self._script = script
        self.lookups: list[str] = []

    def __call__(self, host: str, port: int) -> list[IPAddress]:
        answers = self._script.get(host)
        if not answers:
            return []  # does not resolve
        seen = self.lookups.count(host)
        self.lookups.append(host)
        return [ipaddress.ip_address(a) for a in answers[min(seen, len(answers) - 1)]]


class LoopbackNetwork(httpx.BaseTransport):
    """Connects to addresses by handing them to loopback servers.

    ``servers`` maps an address (say a public one, standing for the real
    receiver, or ``127.0.0.1``, standing for a service on the machine itself)
    to the port of the local server that plays it. A request for a *name* is
    resolved with ``resolver`` first, as a stack that looks the name up again
    would. ``connections`` lists every ``(address, port, Host header)``.
    ``verify``: the TLS trust for https servers (a test CA); the TLS server
    name is whatever the request's ``sni_hostname`` says, else its host.
    """

    def __init__(
        self,
        resolver: ScriptedResolver,
        servers: dict[str, int],
        verify: ssl.SSLContext | bool = True,
    ) -> None:
        self._resolver = resolver
        self._servers = servers
        self._http = httpx.HTTPTransport(verify=verify, trust_env=False)
        self.connections: list[tuple[str, int, str]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        port = url.port or (443 if url.scheme == "https" else 80)
        try:
            address = str(ipaddress.ip_address(url.host))
        except ValueError:
            address = str(self._resolver(url.host, port)[0])
        self.connections.append((address, port, request.headers.get("host", "")))
        if address not in self._servers:
            raise httpx.ConnectError(f"test network: no route to {address}", request=request)
        extensions = dict(request.extensions)
        if url.scheme == "https":  # after the hop to 127.0.0.1, TLS still checks the URL's name
            extensions.setdefault("sni_hostname", url.host)
        forwarded = httpx.Request(
            request.method,
            url.copy_with(host="127.0.0.1", port=self._servers[address]),
            headers=request.headers,
            stream=request.stream,
            extensions=extensions,
        )
        return self._http.handle_request(forwarded)

    def close(self) -> None:
        self._http.close()
