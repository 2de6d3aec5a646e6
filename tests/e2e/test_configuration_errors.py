"""A missing setting is a 400 at start that names it, not a run that fails later (issue 19)."""

from __future__ import annotations

import httpx
import pytest

from shared.config import Settings

pytestmark = pytest.mark.e2e


def test_a_provider_without_its_key_is_refused_at_start(start_devhost, data_dir) -> None:
    host = start_devhost(Settings(data_dir=data_dir, reasoner="offline", search_provider="brave"))
    with httpx.Client(base_url=host.url, timeout=30) as api:
        refused = api.post(
            "/api/research",
            json={"query": "What is a generator?", "mode": "search", "chat_id": "c-config"},
        )
        listed = api.get("/api/chats/c-config/sessions")
        chat = api.post(
            "/api/research", json={"query": "hi", "mode": "chat", "chat_id": "c-config"}
        )

    assert refused.status_code == 400, refused.text
    error = refused.json()["error"]
    assert error["code"] == "configuration_error" and "BRAVE_API_KEY" in error["message"]
    assert listed.status_code == 200 and listed.json()["sessions"] == []  # nothing was created
    assert chat.status_code in (200, 202), chat.text  # chat needs no search provider


def test_a_malformed_webhook_secret_is_refused_for_runs_with_a_callback(
    start_devhost, data_dir, webhook_receiver
) -> None:
    settings = Settings(
        data_dir=data_dir,
        reasoner="offline",
        search_provider="local",
        webhook_secret="an-old-plain-secret",  # not whsec_<base64>
        webhook_allowed_hosts="127.0.0.1",
    )
    host = start_devhost(settings)
    body = {"query": "What is a generator?", "mode": "chat", "callback_url": webhook_receiver.url}
    with httpx.Client(base_url=host.url, timeout=30) as api:
        refused = api.post("/api/research", json=body)
        without = api.post("/api/research", json={"query": "What is a generator?", "mode": "chat"})

    assert refused.status_code == 400, refused.text
    error = refused.json()["error"]
    assert error["code"] == "configuration_error" and "WEBHOOK_SECRET" in error["message"]
    assert without.status_code in (200, 202), without.text
