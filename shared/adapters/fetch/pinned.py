"""``PinnedTransport``: an httpx transport that connects only where the SSRF guard looked.

Checking a URL and then letting the HTTP stack connect by name leaves a gap:
the stack resolves the name again, and a DNS server that answered a public
address to the check can answer ``127.0.0.1`` to the connect (DNS rebinding).
This transport closes it for every request that goes through it, the page
fetcher's and the webhook sender's alike:

1. the request's URL passes :func:`shared.adapters.fetch.guard.resolve_checked`, which
   resolves the host once and judges every address it got;
2. the request is sent to the first checked address: the URL's host is
   replaced by that IP, while the ``Host`` header keeps the real name (httpx
   set it when the request was built) and, for https, the TLS server name
   (SNI) is the real name too, so the certificate is still verified against
   the host the caller asked for.

Hosts in ``allowed_hosts`` are trusted and connected by name (tests, intranet
receivers). A refused URL raises ``FetchRefused`` and a temporary DNS failure
``TransientError`` out of ``client.send``, before any byte is sent.

Use it with ``httpx.Client(transport=..., trust_env=False)``: with
``trust_env`` a proxy from the environment would be mounted in front of the
transport and connect by name.
"""

from __future__ import annotations

from collections.abc import Collection

import httpx

from shared.adapters.fetch.guard import IPAddress, Resolver, resolve_checked


class PinnedTransport(httpx.BaseTransport):
    """Guard-checks each request and connects to the address that passed.

    ``resolver`` and ``network`` exist for tests: a scripted DNS, and the
    transport that stands for the network below this one (default: httpx's
    own ``HTTPTransport``).
    """

    def __init__(
        self,
        allowed_hosts: Collection[str] = (),
        *,
        resolver: Resolver | None = None,
        network: httpx.BaseTransport | None = None,
    ) -> None:
        self._allowed_hosts = tuple(allowed_hosts)
        self._resolver = resolver
        self._network = network or httpx.HTTPTransport(trust_env=False)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        addresses = resolve_checked(str(request.url), self._allowed_hosts, self._resolver)
        if addresses:
            request = pin(request, addresses[0])
        return self._network.handle_request(request)

    def close(self) -> None:
        self._network.close()


def pin(request: httpx.Request, address: IPAddress) -> httpx.Request:
    """The same request aimed at ``address``, still naming the original host.

    The ``Host`` header is kept from the original request; the TLS server name
    (httpcore's ``sni_hostname`` extension) is the original host for https.
    """
    url = request.url
    extensions = dict(request.extensions)
    if url.scheme == "https":
        extensions["sni_hostname"] = url.host
    pinned = httpx.Request(
        request.method,
        url.copy_with(host=str(address)),
        headers=request.headers,
        stream=request.stream,
        extensions=extensions,
    )
    return pinned
