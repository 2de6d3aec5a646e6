"""Every client mistake: a JSON error with the right status, never a 5xx, nothing created."""

from __future__ import annotations

import json

import httpx

from shared.core.limits import NUM_AGENTS

CHAT = "errors-chat"
JSON = {"Content-Type": "application/json"}  # devhost refuses other bodies (415)
# Runs started here build the local corpus index; share its disk cache (keyed by corpus hash).


def assert_error(response: httpx.Response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert set(error) == {"code", "message", "details"}
    assert error["message"] and isinstance(error["details"], list)
    if code:
        assert error["code"] == code
    return error


def assert_nothing_created(api: httpx.Client) -> None:
    assert api.get(f"/api/chats/{CHAT}/sessions").json()["sessions"] == []


def test_malformed_json_is_400(api: httpx.Client) -> None:
    for raw in (b"{not json", b'{"query": "x"', b'["a list"]', b"", b'{"query": "\xff"}'):
        response = api.post(
            "/api/research", content=raw, headers={"Content-Type": "application/json"}
        )
        assert_error(response, 400, "malformed_json")
    assert_nothing_created(api)


def test_body_over_64_kb_is_413(api: httpx.Client) -> None:
    body = json.dumps({"query": "x", "chat_id": CHAT, "padding": "y" * 70_000}).encode()

    assert_error(api.post("/api/research", content=body, headers=JSON), 413, "payload_too_large")
    assert_nothing_created(api)


def test_body_over_the_host_limit_is_the_same_json_413(api: httpx.Client) -> None:
    body = b'{"query": "' + b"y" * (2 * 1024 * 1024) + b'"}'

    assert_error(api.post("/api/research", content=body, headers=JSON), 413, "payload_too_large")
    assert_nothing_created(api)


INVALID = [
    ({"query": ""}, "query"),
    ({"query": "   \n "}, "query"),
    ({"query": "x" * 4001}, "query"),
    ({"query": "nul\u0000byte"}, "query"),
    ({"query": 42}, "query"),
    ({}, "query"),
    ({"query": "q", "mode": "fast"}, "mode"),
    ({"query": "q", "options": {"num_agents": 0}}, "options.num_agents"),
    ({"query": "q", "options": {"num_agents": NUM_AGENTS.le + 1}}, "options.num_agents"),
    ({"query": "q", "options": {"agent_max_steps": 99}}, "options.agent_max_steps"),
    (
        {"query": "q", "options": {"clarification_timeout_minutes": 0}},
        "options.clarification_timeout_minutes",
    ),
    ({"query": "q", "options": {"turbo": True}}, "options.turbo"),
    ({"query": "q", "wait_seconds": 61}, "wait_seconds"),
    ({"query": "q", "wait_seconds": -1}, "wait_seconds"),
    ({"query": "q", "chat_id": "../x"}, "chat_id"),
    ({"query": "q", "callback_url": "http://169.254.169.254/latest/meta-data"}, "callback_url"),
    ({"query": "q", "callback_url": "file:///etc/passwd"}, "callback_url"),
    ({"query": "q", "callback_url": "http://127.0.0.1/hook"}, "callback_url"),
    ({"query": "q", "callback_url": "not a url"}, "callback_url"),
    ({"query": "q", "unknown_field": 1}, "unknown_field"),
]


def test_invalid_research_requests_are_422_naming_the_field(api: httpx.Client) -> None:
    for body, field in INVALID:
        response = api.post("/api/research", json={"chat_id": CHAT, **body})

        error = assert_error(response, 422, "validation_error")
        located = {".".join(str(p) for p in d.get("loc", [])) for d in error["details"]}
        assert field in located, (body, error)
        assert field in error["message"], (body, error)
    assert_nothing_created(api)


def test_unknown_sessions_are_404_on_every_route(api: httpx.Client) -> None:
    for sid in ("0123456789abcdef", "..x", "-leading-dash", "x" * 200):
        assert_error(api.get(f"/api/research/{sid}"), 404, "not_found")
        assert_error(api.get(f"/api/research/{sid}/report"), 404, "not_found")
        assert_error(api.get(f"/api/research/{sid}/report.pdf"), 404, "not_found")
        assert_error(api.post(f"/api/research/{sid}/cancel"), 404, "not_found")
        reply = api.post(f"/api/research/{sid}/clarification", json={"text": "hi"})
        assert_error(reply, 404, "not_found")
    # A path that tries to climb out is no route at all.
    assert_error(api.get("/api/research/..%2F..%2Fetc%2Fpasswd"), 404)


def test_unknown_routes_and_methods(api: httpx.Client) -> None:
    assert_error(api.get("/api/nothing-here"), 404, "not_found")
    assert_error(api.delete("/api/research"), 405, "method_not_allowed")
    assert_error(api.get("/api/research"), 405, "method_not_allowed")
    assert_error(api.put("/api/research/abc"), 405, "method_not_allowed")


def test_bad_report_format_is_422(api: httpx.Client) -> None:
    sid = api.post("/api/research", json={"query": "python", "chat_id": CHAT}).json()["session_id"]

    error = assert_error(api.get(f"/api/research/{sid}/report", params={"format": "docx"}), 422)

    assert "format" in error["message"]


def test_bad_clarification_bodies_are_400_or_422(api: httpx.Client) -> None:
    sid = api.post("/api/research", json={"query": "python", "chat_id": CHAT}).json()["session_id"]
    url = f"/api/research/{sid}/clarification"

    assert_error(api.post(url, content=b"{oops", headers=JSON), 400, "malformed_json")
    bad = (
        {},
        {"answers": []},
        {"answers": ["a"], "text": "b"},
        {"text": "  "},
        {"answers": [""]},
        {"answers": ["x" * 2001]},
        {"text": "x", "extra": 1},
    )
    for body in bad:
        assert_error(api.post(url, json=body), 422, "validation_error")
    assert_error(api.post(url, content=b"x" * 70_000, headers=JSON), 413, "payload_too_large")


def test_no_client_mistake_yields_a_5xx(api: httpx.Client) -> None:
    """Odd but plausible inputs a client might send; whatever the answer, it is not a 5xx."""
    attempts = [
        api.post("/api/research", content=b"null", headers=JSON),
        api.post("/api/research", content=b"1e999", headers=JSON),
        api.post("/api/research", content=b'{"query": "q", "wait_seconds": NaN}', headers=JSON),
        api.post(
            "/api/research", content=b'{"query": "q", "wait_seconds": Infinity}', headers=JSON
        ),
        api.post("/api/research", json={"query": "q", "options": None}),
        api.post("/api/research", json={"query": "q", "options": []}),
        api.post("/api/research", json={"query": ["q"]}),
        api.post("/api/research", json={"query": "q", "mode": None}),
        api.post("/api/research", json={"query": "q", "callback_url": "http://[::1"}),
        api.post("/api/research", json={"query": "q", "callback_url": "http://x:99999/"}),
        api.post(
            "/api/research", content=b'{"query": "q"}', headers={"Content-Type": "text/plain"}
        ),
        api.get("/api/research/abc/report", params={"format": ""}),
        api.get("/api/chats/..%2Fx/sessions"),
        api.get("/api/chats/%00/sessions"),
    ]
    for response in attempts:
        assert response.status_code < 500, (response.request.content[:80], response.text)
        if response.status_code >= 400:
            assert "error" in response.json()


def test_a_second_deep_research_in_a_chat_is_409_naming_the_active_one(api: httpx.Client) -> None:
    first = api.post("/api/research", json={"query": "python", "chat_id": CHAT})
    assert first.status_code == 202

    second = api.post("/api/research", json={"query": "python again", "chat_id": CHAT})

    error = assert_error(second, 409, "active_session")
    assert error["details"][0]["active_session_id"] == first.json()["session_id"]
    assert len(api.get(f"/api/chats/{CHAT}/sessions").json()["sessions"]) == 1


def test_a_path_with_a_newline_reaches_the_function_and_gets_a_json_404(api):
    """Route parameters may hold any character but '/': the host must not answer itself."""
    response = api.get("/api/research/a%0Ab")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
