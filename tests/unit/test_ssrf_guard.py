"""The SSRF guard refuses every private spelling and accepts public literals offline."""

from __future__ import annotations

import socket
from ipaddress import ip_address

import pytest

from shared.adapters.fetch.guard import blocked_reason, check_url, parse_ip_literal
from shared.core.errors import FetchRefused


@pytest.fixture
def no_dns(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Fail the test if the guard resolves anything (IP literals must not hit DNS)."""
    asked: list[str] = []

    def refuse(host, *args, **kwargs):
        asked.append(host)
        raise AssertionError(f"unexpected DNS lookup of {host!r}")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    return asked


def fake_dns(monkeypatch: pytest.MonkeyPatch, table: dict[str, list[str]]) -> None:
    def resolve(host, port, *args, **kwargs):
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port)) for ip in table[host]]

    monkeypatch.setattr(socket, "getaddrinfo", resolve)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1/", "loopback"),
        ("http://10.1.2.3/", "private"),
        ("http://172.16.0.5/", "private"),
        ("http://192.168.1.1/admin", "private"),
        ("http://169.254.169.254/latest/meta-data/", "metadata"),
        ("http://169.254.10.1/", "link-local"),
        ("http://168.63.129.16/machine", "metadata"),
        ("http://100.100.100.200/latest/meta-data/", "metadata"),
        ("http://100.64.0.1/", "not globally routable"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://224.0.0.1/", "multicast"),
        ("http://240.0.0.1/", "reserved"),
        ("http://255.255.255.255/", "reserved"),
    ],
)
def test_blocked_ipv4_classes_are_refused_with_the_reason(url, reason, no_dns):
    with pytest.raises(FetchRefused, match=reason):
        check_url(url)


@pytest.mark.parametrize(
    ("url", "address"),
    [
        ("http://2130706433/", "127.0.0.1"),
        ("http://0x7f.1/", "127.0.0.1"),
        ("http://017700000001/", "127.0.0.1"),
        ("http://0x7f000001/", "127.0.0.1"),
        ("http://127.1/", "127.0.0.1"),
        ("http://0177.0.0.1/", "127.0.0.1"),
        ("http://0x7F.0.0.0x1/", "127.0.0.1"),
        ("http://3232235777/", "192.168.1.1"),
        ("http://0xa9fea9fe/latest/", "169.254.169.254"),
        ("http://0251.0376.0251.0376/", "169.254.169.254"),
        ("http://127.0.0.1./", "127.0.0.1"),
    ],
)
def test_numeric_ipv4_spellings_are_decoded_and_refused(url, address, no_dns):
    with pytest.raises(FetchRefused, match=address.replace(".", r"\.")):
        check_url(url)


@pytest.mark.parametrize("host", ["256.1.1.1", "1.2.3.4.5", "0x1g.1", "08.1.1.1", "1.2.3.99999999"])
def test_malformed_numeric_hosts_are_refused_not_resolved(host, no_dns):
    with pytest.raises(FetchRefused, match="malformed"):
        check_url(f"http://{host}/")


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://[::1]/", "loopback"),
        ("http://[::]/", "unspecified"),
        ("http://[::ffff:127.0.0.1]/", "embedding 127.0.0.1"),
        ("http://[::ffff:7f00:1]/", "embedding 127.0.0.1"),
        ("http://[::ffff:169.254.169.254]/", "embedding 169.254.169.254"),
        ("http://[::127.0.0.1]/", "embedding 127.0.0.1"),
        ("http://[::10.0.0.1]/", "embedding 10.0.0.1"),
        ("http://[2002:7f00:1::1]/", "embedding 127.0.0.1"),
        ("http://[2002:c0a8:101::1]/", "embedding 192.168.1.1"),
        ("http://[64:ff9b::a00:1]/", "embedding 10.0.0.1"),
        ("http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "private"),
        ("http://[fc00::1]/", "private"),
        ("http://[fd12:3456::1]/", "private"),
        ("http://[fd00:ec2::254]/latest/meta-data/", "metadata"),
        ("http://[fe80::1]/", "link-local"),
        ("http://[fe80::1%25eth0]/", "link-local"),
        ("http://[fec0::1]/", "site-local"),
        ("http://[ff02::1]/", "multicast"),
    ],
)
def test_blocked_ipv6_forms_are_refused(url, reason, no_dns):
    with pytest.raises(FetchRefused, match=reason):
        check_url(url)


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://ftp.example.com/pub/file",
        "gopher://example.com:70/_GET",
        "javascript:alert(1)",
        "data:text/html,<h1>x</h1>",
        "dict://example.com:2628/",
        "//example.com/path",
    ],
)
def test_other_schemes_are_refused(url, no_dns):
    with pytest.raises(FetchRefused, match="scheme"):
        check_url(url)


@pytest.mark.parametrize(
    "url",
    [
        "http://93.184.216.34:8080/",
        "https://93.184.216.34:22/",
        "http://93.184.216.34:6379/",
        "https://[2606:4700::1111]:8443/",
    ],
)
def test_ports_other_than_80_and_443_are_refused(url, no_dns):
    with pytest.raises(FetchRefused, match="port"):
        check_url(url)


@pytest.mark.parametrize(
    "url",
    [
        "http://93.184.216.34/",
        "https://93.184.216.34:443/page?q=1",
        "http://93.184.216.34:80/",
        "https://[2606:4700::1111]/",
        "http://[2606:4700::1111]:80/",
        "https://1.1.1.1/dns-query",
    ],
)
def test_public_ip_literals_pass_without_dns(url, no_dns):
    check_url(url)
    assert no_dns == []


def refusal_of(url: str) -> str:
    with pytest.raises(FetchRefused) as refused:
        check_url(url)
    return str(refused.value)


def test_a_name_resolving_to_loopback_is_refused_without_saying_where_it_points():
    # "localhost" resolves through the system resolver (/etc/hosts) and never leaves the host.
    message = refusal_of("http://localhost/")
    assert "'localhost' is not allowed" in message
    for detail in ("127.0.0.1", "::1", "resolves to", "loopback"):
        assert detail not in message


def test_every_resolved_address_must_be_public(monkeypatch):
    fake_dns(monkeypatch, {"mixed.test": ["93.184.216.34", "10.0.0.7"]})
    message = refusal_of("https://mixed.test/")
    assert "'mixed.test' is not allowed" in message
    assert "10.0.0.7" not in message and "93.184.216.34" not in message
    assert "private" not in message


def test_a_private_name_and_a_missing_one_are_refused_alike(monkeypatch):
    """Else the message tells which internal names exist: a map of the internal DNS."""
    fake_dns(monkeypatch, {"db.corp.test": ["10.1.2.3"]})
    internal = refusal_of("https://db.corp.test/")
    missing = refusal_of("https://nothing.corp.test/")
    assert internal.replace("db.corp.test", "NAME") == missing.replace("nothing.corp.test", "NAME")


def test_a_name_resolving_only_to_public_addresses_passes(monkeypatch):
    fake_dns(monkeypatch, {"public.test": ["93.184.216.34"]})
    check_url("https://public.test/page")


def test_unresolvable_names_are_refused(monkeypatch):
    fake_dns(monkeypatch, {})
    with pytest.raises(FetchRefused, match=r"'nowhere\.test' is not allowed"):
        check_url("https://nowhere.test/")


@pytest.mark.parametrize(
    "url",
    [
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://metadata/",
        "http://x.internal/",
    ],
)
def test_metadata_names_are_refused_without_dns(url, no_dns):
    with pytest.raises(FetchRefused, match="metadata"):
        check_url(url)


def test_allowed_hosts_skip_address_and_port_checks(no_dns):
    check_url("http://localhost:8123/page", allowed_hosts=["localhost:8123"])
    check_url("http://LocalHost:9999/page", allowed_hosts=["localhost"])
    check_url("http://127.0.0.1:5000/", allowed_hosts=["127.0.0.1"])


def test_allowed_host_with_port_does_not_allow_other_ports_or_hosts(no_dns):
    with pytest.raises(FetchRefused, match="loopback"):
        check_url("http://127.0.0.1:8123/", allowed_hosts=["localhost:8123"])
    with pytest.raises(FetchRefused):
        check_url("http://localhost:8124/", allowed_hosts=["localhost:8123"])


def test_public_addresses_and_literal_parsing():
    assert blocked_reason(ip_address("93.184.216.34")) is None
    assert blocked_reason(ip_address("2606:4700::1111")) is None
    assert blocked_reason(ip_address("::ffff:10.0.0.1")) is not None
    assert blocked_reason(ip_address("169.254.169.254")) is not None
    assert str(parse_ip_literal("0x7f.1")) == "127.0.0.1"
    assert parse_ip_literal("example.com") is None
