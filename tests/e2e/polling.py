"""Following a session over the public API, as a client does."""

from __future__ import annotations

import time

import httpx


def wait_for(api: httpx.Client, session_id: str, statuses: set[str], timeout: float = 180) -> dict:
    """Poll the status endpoint until the session is in one of ``statuses``."""
    deadline = time.monotonic() + timeout
    while True:
        view = api.get(f"/api/research/{session_id}").json()
        if view["status"] in statuses:
            return view
        assert time.monotonic() < deadline, f"still {view['status']} ({view['phase']})"
        time.sleep(0.3)
