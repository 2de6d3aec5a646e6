"""``GET /api/health?check=llm``: each model role called once, over HTTP through devhost."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
import pytest

from shared.core.config import Settings
from tests.fakes.local_servers import NoJsonSchema
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    RecordedRequest,
    error,
    schema_aware_responder,
)

pytestmark = pytest.mark.e2e
ROLES = ["fast", "strategic", "long_context", "chat"]


def _health(start_devhost, tmp_path: Path, **llm) -> httpx.Response:
    host = start_devhost(Settings(data_dir=tmp_path / "data", search_provider="local", **llm))
    with httpx.Client(base_url=host.url, timeout=60) as api:
        return api.get("/api/health", params={"check": "llm"})


def test_each_role_reports_its_model_latency_and_structured_mode(start_devhost, tmp_path) -> None:
    with FakeOpenAIServer(NoJsonSchema()) as server:
        response = _health(start_devhost, tmp_path, openai_base_url=server.base_url)
    assert response.status_code == 200, response.text
    checks = response.json()["llm"]
    assert [c["role"] for c in checks] == ROLES
    assert {c["model"] for c in checks} == {"gpt-4o-mini", "gpt-4o"}
    assert all(c["ok"] and c["error"] is None for c in checks)
    # the server refused json_schema once; every role reports the mode that works
    assert {c["structured_output"] for c in checks} == {"json_object"}
    assert all(c["latency_ms"] >= 0 for c in checks)
    # roles sharing a model share one call: two models, one refusal, two answers
    assert len(server.requests) == 3


def test_a_wrong_key_is_named_for_every_role(start_devhost, tmp_path) -> None:
    def keyed(request: RecordedRequest):
        if request.headers.get("authorization") != "Bearer right":
            return error(401)
        return schema_aware_responder(request)

    with FakeOpenAIServer(keyed) as server:
        response = _health(
            start_devhost, tmp_path, openai_base_url=server.base_url, openai_api_key="wrong"
        )
    assert response.status_code == 503, response.text
    body = response.json()
    assert body["status"] == "degraded"
    assert all(not c["ok"] and "401" in c["error"] for c in body["llm"])
    assert all("credentials" in c["error"] for c in body["llm"])


def test_an_unreachable_endpoint_is_named(start_devhost, tmp_path) -> None:
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    response = _health(start_devhost, tmp_path, openai_base_url=f"http://127.0.0.1:{port}/v1")
    assert response.status_code == 503, response.text
    assert all("unreachable" in c["error"] for c in response.json()["llm"])


def test_without_an_endpoint_there_is_nothing_to_check(start_devhost, tmp_path) -> None:
    response = _health(start_devhost, tmp_path)
    assert response.status_code == 409, response.text
    assert "OPENAI_BASE_URL" in response.json()["error"]["message"]
    plain = httpx.get(response.url.copy_with(params={}))
    assert plain.status_code == 200 and "llm" not in plain.json()


def test_an_unknown_check_is_a_clear_422(devhost) -> None:
    response = httpx.get(f"{devhost.url}/api/health", params={"check": "everything"})
    assert response.status_code == 422
    assert "check must be 'llm'" in response.json()["error"]["message"]
