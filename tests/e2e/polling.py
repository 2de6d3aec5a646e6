"""Following a session over the public API, as a client does."""

from __future__ import annotations

import time

import httpx

TERMINAL = frozenset({"completed", "failed", "cancelled", "superseded"})


def wait_for(api: httpx.Client, session_id: str, statuses: set[str], timeout: float = 180) -> dict:
    """Poll the status endpoint until the session is in one of ``statuses``.

    Every poll must answer 200, as a client would expect while a run goes on.
    """
    deadline = time.monotonic() + timeout
    while True:
        response = api.get(f"/api/research/{session_id}")
        assert response.status_code == 200, response.text
        view = response.json()
        if view["status"] in statuses:
            return view
        assert time.monotonic() < deadline, f"still {view['status']} ({view['phase']})"
        time.sleep(0.3)


def wait_terminal(api: httpx.Client, session_id: str, timeout: float = 180) -> dict:
    return wait_for(api, session_id, set(TERMINAL), timeout)
