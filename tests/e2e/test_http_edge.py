"""devhost's HTTP edge against cross-site use, over real HTTP (issue 27, items 7 and 12).

Any web page a developer visits can make their browser talk to 127.0.0.1:
a form POST (``text/plain`` or form-encoded) from another site, or a page
whose host name is rebound to 127.0.0.1. Neither may start a run. devhost
answers only to loopback Host names (421), refuses foreign Origins (403) and
bodies that are not JSON (415), on every path it serves; the page it serves
itself stays same-origin and keeps working. Bodies stop being read at the
64 KB cap (413), responses say ``nosniff``, and the page's trailing-slash
redirect never leaves the site.
"""

from __future__ import annotations

import json
from urllib.parse import urljoin, urlsplit

import httpx
import pytest

from api.errors import MAX_BODY_BYTES
from devhost.host import DevHost

pytestmark = pytest.mark.e2e

START = {"query": "What is a Python list?", "mode": "chat", "chat_id": "edge-chat"}
EVERY_FRONT = [
    ("GET", "/api/health"),
    ("GET", "/api/ui"),
    ("POST", "/api/research"),
    ("POST", "/runtime/webhooks/mcp"),
    ("GET", "/runtime/webhooks/durabletask/instances/"),
]
MCP_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "edge-test", "version": "1"},
    },
}


def runs_started(host: DevHost) -> int:
    assert host.engine is not None
    return host.engine.stats["instances_started"]


def assert_refused(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == code, error
    return error["message"]


def send(host: DevHost, method: str, path: str, headers: dict[str, str]) -> httpx.Response:
    body = MCP_INITIALIZE if "mcp" in path else START if method == "POST" else None
    extra = {"Accept": "application/json, text/event-stream"} if "mcp" in path else {}
    return httpx.request(
        method, host.url + path, json=body, headers={**extra, **headers}, timeout=30
    )


# -- Host ---------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "path"), EVERY_FRONT)
def test_a_foreign_host_name_is_421_on_every_path(devhost: DevHost, method, path) -> None:
    rebound = {"Host": f"attacker.example:{devhost.port}"}  # DNS rebinding: same address

    message = assert_refused(send(devhost, method, path, rebound), 421, "misdirected_request")

    assert "attacker.example" in message and "localhost" in message
    assert runs_started(devhost) == 0


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "LocalHost", "[::1]"])
def test_loopback_host_names_are_served(devhost: DevHost, name: str) -> None:
    response = httpx.get(
        f"{devhost.url}/api/health", headers={"Host": f"{name}:{devhost.port}"}, timeout=30
    )
    assert response.status_code == 200, response.text


# -- Origin and Content-Type --------------------------------------------------------


def test_a_cross_site_form_post_starts_nothing(devhost: DevHost, api: httpx.Client) -> None:
    """What a form on another site sends, with and without the Origin browsers add."""
    as_text = {"Content-Type": "text/plain"}
    foreign = {**as_text, "Origin": "https://attacker.example"}
    body = json.dumps(START)

    cross_site = api.post("/api/research", content=body, headers=foreign)
    plain = api.post("/api/research", content=body, headers=as_text)
    form = api.post("/api/research", data={"query": "x"})
    untyped = api.post("/api/research", content=body)

    assert "attacker.example" in assert_refused(cross_site, 403, "forbidden_origin")
    assert "application/json" in assert_refused(plain, 415, "unsupported_media_type")
    assert_refused(form, 415, "unsupported_media_type")
    assert_refused(untyped, 415, "unsupported_media_type")
    assert runs_started(devhost) == 0
    assert api.get("/api/chats/edge-chat/sessions").json()["sessions"] == []


@pytest.mark.parametrize(
    "origin",
    ["https://attacker.example", "null", "http://127.0.0.1.attacker.example", "file://"],
)
@pytest.mark.parametrize(("method", "path"), EVERY_FRONT)
def test_a_foreign_origin_is_403_on_every_path(devhost: DevHost, method, path, origin) -> None:
    response = send(devhost, method, path, {"Origin": origin})

    assert_refused(response, 403, "forbidden_origin")
    assert runs_started(devhost) == 0


def test_the_page_s_own_origin_may_start_a_run(devhost: DevHost, api: httpx.Client) -> None:
    """The web page devhost serves posts JSON with its own origin, whichever loopback name."""
    for origin in (devhost.url, f"http://localhost:{devhost.port}"):
        started = api.post("/api/research", json=START, headers={"Origin": origin})
        assert started.status_code in (200, 202), started.text
    assert runs_started(devhost) == 2


def test_a_post_without_a_body_needs_no_content_type(api: httpx.Client) -> None:
    sid = api.post("/api/research", json={**START, "mode": "deep_research"}).json()["session_id"]

    cancelled = api.post(f"/api/research/{sid}/cancel")

    assert cancelled.status_code == 202, cancelled.text


# -- request bodies stop at the cap -------------------------------------------------


@pytest.mark.parametrize("path", ["/api/research", "/runtime/webhooks/mcp"])
def test_a_chunked_body_over_the_cap_is_413_before_it_is_all_read(
    devhost: DevHost, path: str
) -> None:
    chunk, total = b" " * 65536, 64 * 1024 * 1024
    sent = 0

    def body():
        nonlocal sent
        while sent < total:
            sent += len(chunk)
            yield chunk

    response = httpx.post(
        devhost.url + path,
        content=body(),  # no Content-Length: the server cannot know the size up front
        headers={"Content-Type": "application/json", "Accept": "application/json"},
        timeout=60,
    )

    message = assert_refused(response, 413, "payload_too_large")
    assert str(MAX_BODY_BYTES) in message
    assert sent < total // 4, f"the client sent {sent} of {total} bytes"
    assert response.headers.get("connection") == "close"
    assert runs_started(devhost) == 0


def test_a_declared_length_over_the_cap_is_413(api: httpx.Client, devhost: DevHost) -> None:
    body = json.dumps({**START, "padding": "y" * MAX_BODY_BYTES})

    response = api.post("/api/research", content=body, headers={"Content-Type": "application/json"})

    assert_refused(response, 413, "payload_too_large")
    assert runs_started(devhost) == 0


# -- nosniff and the page's redirect ------------------------------------------------


def test_every_api_response_says_nosniff(api: httpx.Client) -> None:
    done = api.post("/api/research", json={**START, "wait_seconds": 30})
    assert done.status_code == 200 and done.json()["status"] == "completed", done.text
    sid = done.json()["session_id"]
    responses = {
        "start": done,
        "status": api.get(f"/api/research/{sid}"),
        "report md": api.get(f"/api/research/{sid}/report", params={"format": "md"}),
        "report json": api.get(f"/api/research/{sid}/report", params={"format": "json"}),
        "sessions": api.get("/api/chats/edge-chat/sessions"),
        "health": api.get("/api/health"),
        "unknown session": api.get("/api/research/0123456789abcdef"),
        "invalid body": api.post("/api/research", json={"query": ""}),
        "no route": api.get("/api/nothing-here"),
        "unknown asset": api.get("/api/ui/secrets.txt"),
    }
    statuses = {name: r.status_code for name, r in responses.items()}
    assert statuses["report md"] == statuses["report json"] == 200, statuses
    missing = {
        n for n, r in responses.items() if r.headers.get("x-content-type-options") != "nosniff"
    }
    assert missing == set(), statuses


@pytest.mark.parametrize("path", ["/api/ui/", "//api/ui/", "///api/ui/", "//api/ui/?session=ab12"])
def test_the_page_s_trailing_slash_redirect_stays_on_this_site(devhost: DevHost, path) -> None:
    response = httpx.get(devhost.url + path, timeout=30)

    assert response.status_code == 308, response.text
    location = response.headers["location"]
    assert location.startswith("/api/ui") and not location.startswith("//"), location
    assert urlsplit(urljoin(devhost.url + path, location)).netloc == urlsplit(devhost.url).netloc
    assert location.endswith("?session=ab12") == ("session=" in path)
