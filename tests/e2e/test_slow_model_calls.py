"""A slow model call is shown in the status while it runs, and gone once it ends.

The OpenAI fake holds its reply until the test has seen the call in the
session's status (an event, not a sleep), so a two-minute local generation is
imitated without waiting two minutes.
"""

from __future__ import annotations

import threading

import httpx
import pytest

from shared.core.config import Settings
from tests.e2e.polling import wait_terminal
from tests.fakes.openai_server import FakeOpenAIServer, RecordedRequest, schema_aware_responder

pytestmark = pytest.mark.e2e


def test_a_slow_call_is_shown_with_its_model_until_it_ends(start_devhost, tmp_path) -> None:
    release = threading.Event()

    def held(request: RecordedRequest):
        release.wait(60)
        return schema_aware_responder(request)

    with FakeOpenAIServer(held) as server:
        host = start_devhost(
            Settings(
                data_dir=tmp_path / "data",
                openai_base_url=server.base_url,
                chat_model="qwen2.5:14b",
                llm_slow_call_seconds=0,
            )
        )
        with httpx.Client(base_url=host.url, timeout=30) as api:
            started = api.post(
                "/api/research", json={"query": "What is a heat pump?", "mode": "chat"}
            )
            assert started.status_code in (200, 202), started.text
            session_id = started.json()["session_id"]
            try:
                view = _until(api, session_id, lambda v: v.get("model_calls"))
            finally:
                release.set()
            (call,) = view["model_calls"]
            assert call["model"] == "qwen2.5:14b" and call["running_seconds"] >= 0
            assert view["status"] not in ("completed", "failed")
            done = wait_terminal(api, session_id, 60)
    assert done["status"] == "completed", done
    assert "model_calls" not in done


def _until(api: httpx.Client, session_id: str, condition, timeout: float = 30) -> dict:
    """Poll the status until ``condition(view)`` holds (the fake holds its reply meanwhile)."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        view = api.get(f"/api/research/{session_id}").json()
        if condition(view):
            return view
        assert time.monotonic() < deadline, view
        time.sleep(0.05)
