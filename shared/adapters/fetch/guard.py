"""The SSRF guard: decide whether a URL may be fetched before any byte is sent.

Every outbound request whose URL comes from outside (search results, a page's
redirects, a user's webhook callback) passes :func:`check_url` first. A URL is
accepted only when its scheme is http(s), its port is 80 or 443, and *every*
address its host resolves to is public. Hosts named in ``allowed_hosts``
(``FETCH_ALLOWED_HOSTS``, ``WEBHOOK_ALLOWED_HOSTS``) skip the address and port
checks: that is how tests and intranet deployments reach local servers.

Why so strict about spellings: resolvers and HTTP stacks accept IPv4 written
as one decimal number (``2130706433``), octal (``0177.0.0.1``) or hex
(``0x7f.1``), and IPv6 forms that embed an IPv4 address (mapped, compatible,
6to4, NAT64, Teredo). Each of those is decoded here with the WHATWG URL rules
and judged by the address it really names, never by how it looks.

Refusals say what was refused, never what a name resolved to: a message that
named the address (or told a name that does not resolve from one that resolves
to a private address) would let a caller map the internal DNS through the
``callback_url`` check or a webhook's delivery error. An IP literal's message
may name its kind (loopback, private…): that is the caller's own input.

An IP literal is judged without any DNS traffic; names go through a
:data:`Resolver` (``socket.getaddrinfo`` unless a test passes its own). The
resolved addresses are returned by :func:`resolve_checked` so callers connect to
exactly the address that was checked (``pinned.py``: no DNS rebinding between
check and connect).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Collection
from urllib.parse import urlsplit

from shared.core.errors import FetchRefused, TransientError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# (host, port) -> the addresses the name resolves to, none for a name that does not
# resolve (refused like a private one). Raises TransientError for a temporary DNS failure.
Resolver = Callable[[str, int], list[IPAddress]]

ALLOWED_SCHEMES = frozenset({"http", "https"})
ALLOWED_PORTS = frozenset({80, 443})
_DEFAULT_PORTS = {"http": 80, "https": 443}

# Metadata services that answer on addresses a generic rule would let through
# (Azure's wireserver is a public-looking address) or on well-known names.
_METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, Azure IMDS, GCP, OpenStack
        "169.254.170.2",  # AWS ECS task metadata
        "168.63.129.16",  # Azure wireserver
        "100.100.100.200",  # Alibaba Cloud
        "fd00:ec2::254",  # AWS IMDS over IPv6
    )
)
_METADATA_NAMES = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.azure.internal",
    }
)
# The one refusal for a name, whatever its addresses were (see the module docstring).
NAME_NOT_ALLOWED = "host {host!r} is not allowed (it must resolve, and only to public addresses)"
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")


def check_url(
    url: str, allowed_hosts: Collection[str] = (), resolver: Resolver | None = None
) -> None:
    """Raise ``FetchRefused`` (with the reason) unless ``url`` may be fetched."""
    resolve_checked(url, allowed_hosts, resolver)


def resolve_checked(
    url: str, allowed_hosts: Collection[str] = (), resolver: Resolver | None = None
) -> list[IPAddress] | None:
    """Check ``url`` like :func:`check_url` and return the addresses that passed.

    ``None`` means the host is explicitly allowed and was not resolved (the
    caller connects by name). The name is resolved once, with ``resolver``
    (default :func:`system_resolver`).
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise FetchRefused(f"malformed URL {url!r}: {exc}") from exc
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise FetchRefused(f"scheme {scheme or '(none)'!r} is not allowed (http/https only): {url}")
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise FetchRefused(f"URL has no host: {url}")
    if port is None:
        port = _DEFAULT_PORTS[scheme]
    if is_allowed_host(host, port, allowed_hosts):
        return None

    literal = parse_ip_literal(host)
    if literal is not None:
        _refuse_if_blocked(literal, url)
    if port not in ALLOWED_PORTS:
        raise FetchRefused(f"port {port} is not allowed (80/443 only): {url}")
    if literal is not None:
        return [literal]
    if host in _METADATA_NAMES or host.endswith(".internal"):
        raise FetchRefused(f"host {host!r} is a cloud metadata / internal name: {url}")
    addresses = (resolver or system_resolver)(host, port)
    if not addresses or any(blocked_reason(a) is not None for a in addresses):
        raise FetchRefused(f"refused {url}: " + NAME_NOT_ALLOWED.format(host=host))
    return addresses


def is_allowed_host(host: str, port: int, allowed_hosts: Collection[str]) -> bool:
    """True when ``host`` (any port) or ``host:port`` is listed, case-insensitively."""
    if not allowed_hosts:
        return False
    wanted = {entry.strip().lower().rstrip("/") for entry in allowed_hosts if entry.strip()}
    bare = host.strip("[]")
    candidates = {bare, f"{bare}:{port}", f"[{bare}]", f"[{bare}]:{port}"}
    return bool(candidates & wanted)


def blocked_reason(address: IPAddress) -> str | None:
    """Why ``address`` must not be contacted, or ``None`` when it is public."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.scope_id:
            address = ipaddress.IPv6Address(str(address).split("%")[0])
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            inner = blocked_reason(embedded)
            if inner is not None:
                return f"IPv6 address embedding {embedded} ({inner})"
    if address in _METADATA_ADDRESSES:
        return "cloud metadata endpoint"
    for label, flag in (
        ("unspecified", address.is_unspecified),
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("reserved", address.is_reserved),
        ("private", address.is_private),
        ("site-local", getattr(address, "is_site_local", False)),
    ):
        if flag:
            return label
    if not address.is_global:
        return "not globally routable"
    return None


def parse_ip_literal(host: str) -> IPAddress | None:
    """The address ``host`` names when it is an IP literal in any accepted spelling.

    Follows the WHATWG URL host parser: a host whose last dot-part is numeric
    is an IPv4 address (1-4 parts, decimal / ``0`` octal / ``0x`` hex), and
    one that ends in a number but does not parse is refused outright rather
    than handed to a resolver that might read it differently.
    """
    bare = host.strip("[]")
    if ":" in bare:
        try:
            return ipaddress.IPv6Address(bare)
        except ValueError as exc:
            raise FetchRefused(f"malformed IPv6 host {host!r}") from exc
    parts = bare.split(".")
    if parts and parts[-1] == "" and len(parts) > 1:
        parts = parts[:-1]
    if not parts or not _looks_numeric(parts[-1]):
        return None
    try:
        numbers = [_parse_ipv4_part(p) for p in parts]
    except ValueError as exc:
        raise FetchRefused(f"host {host!r} looks like a malformed IPv4 address") from exc
    if len(numbers) > 4 or any(n > 255 for n in numbers[:-1]):
        raise FetchRefused(f"host {host!r} looks like a malformed IPv4 address")
    if numbers[-1] >= 256 ** (5 - len(numbers)):
        raise FetchRefused(f"host {host!r} looks like a malformed IPv4 address")
    value = numbers[-1]
    for i, n in enumerate(numbers[:-1]):
        value += n << (8 * (3 - i))
    return ipaddress.IPv4Address(value)


def _looks_numeric(part: str) -> bool:
    if part.isdigit():
        return True
    lowered = part.lower()
    return lowered.startswith("0x") and all(c in "0123456789abcdef" for c in lowered[2:])


def _parse_ipv4_part(part: str) -> int:
    lowered = part.lower()
    if not lowered:
        raise ValueError("empty IPv4 part")
    if lowered.startswith("0x"):
        return int(lowered[2:] or "0", 16)
    if len(lowered) > 1 and lowered.startswith("0"):
        return int(lowered, 8)
    return int(lowered, 10)


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, compatible, 6to4, NAT64, Teredo)."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64 or address in _NAT64_LOCAL:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    value = int(address)
    if 1 < value < 2**32:  # IPv4-compatible (::a.b.c.d), deprecated but still parsed
        return ipaddress.IPv4Address(value)
    return None


def system_resolver(host: str, port: int) -> list[IPAddress]:
    """The addresses ``socket.getaddrinfo`` gives for ``host``, in its order, without repeats.

    None for a name that does not resolve: the caller refuses that in the same
    words as a private name.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        if exc.errno == socket.EAI_AGAIN:
            raise TransientError(f"DNS lookup for {host!r} failed temporarily") from exc
        return []
    addresses: list[IPAddress] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        address = ipaddress.ip_address(str(sockaddr[0]).split("%")[0])
        if address not in addresses:
            addresses.append(address)
    return addresses


def _refuse_if_blocked(address: IPAddress, url: str) -> None:
    """Refuse an IP literal the URL names (its kind is the caller's own input)."""
    reason = blocked_reason(address)
    if reason is not None:
        raise FetchRefused(f"refused {url}: address {address} is not allowed ({reason})")
