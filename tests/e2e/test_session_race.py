"""Twenty concurrent deep research starts in one chat: one wins, nineteen get a clear 409."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

CORPUS_CACHE = Path(os.environ.get("TMPDIR", "/tmp")) / "deep-research-test-corpus"
CHAT = "race-chat"
RACERS = 20


@pytest.fixture(autouse=True)
def _shared_corpus_cache(tmp_path: Path) -> None:
    CORPUS_CACHE.mkdir(parents=True, exist_ok=True)
    (tmp_path / "data").mkdir(exist_ok=True)
    (tmp_path / "data" / "corpus-cache").symlink_to(CORPUS_CACHE, target_is_directory=True)


def test_concurrent_starts_in_one_chat_let_exactly_one_through(devhost) -> None:
    gate = threading.Barrier(RACERS)
    body = {"query": "python", "mode": "deep_research", "chat_id": CHAT}

    def start(_: int) -> httpx.Response:
        with httpx.Client(base_url=devhost.url, timeout=60) as client:
            gate.wait(30)
            return client.post("/api/research", json=body)

    with ThreadPoolExecutor(RACERS) as pool:
        responses = list(pool.map(start, range(RACERS)))

    codes = sorted(r.status_code for r in responses)
    assert codes == [202] + [409] * (RACERS - 1), [
        r.text for r in responses if r.status_code >= 500
    ]
    winner = next(r.json() for r in responses if r.status_code == 202)
    for loser in (r for r in responses if r.status_code == 409):
        error = loser.json()["error"]
        assert error["code"] == "active_session"
        assert CHAT in error["message"]
        assert error["details"][0]["active_session_id"] == winner["session_id"]

    with httpx.Client(base_url=devhost.url, timeout=60) as api:
        sessions = api.get(f"/api/chats/{CHAT}/sessions").json()["sessions"]
        assert [s["session_id"] for s in sessions] == [winner["session_id"]]
        assert devhost.engine.get(winner["instance_id"]) is not None

        assert api.post(f"/api/research/{winner['session_id']}/cancel").status_code == 202
        retry = api.post("/api/research", json=body)

        assert retry.status_code == 202, retry.text
        statuses = {
            s["session_id"]: s["status"]
            for s in api.get(f"/api/chats/{CHAT}/sessions").json()["sessions"]
        }
        assert statuses[winner["session_id"]] == "cancelled"
        assert statuses[retry.json()["session_id"]] in {
            "active",
            "researching",
            "waiting_clarification",
        }
