"""Killing devhost with SIGKILL between two runs of a watch gives exactly one next run.

``python -m devhost serve`` runs as a real subprocess in its own process group
(``tests.e2e.serve_process``), offline on the local corpus. A watch runs every ten
seconds; right after its first run has finished, while its orchestration waits on the
durable timer for the second, the whole group gets SIGKILL. A second host on the same
DATA_DIR and port must run the second run once (its timer, overdue by then, fires
once) and the third at its own time: no run skipped, none doubled, no burst of
catch-up runs.
"""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from tests.e2e.serve_process import ServeProcess, free_port
from tests.e2e.test_crash_resume import warm_corpus

pytestmark = pytest.mark.e2e

EVERY_S = 10
EVERY = f"* * * * * */{EVERY_S}"
TIMEOUT = 90.0


def finished(http: httpx.Client, url: str, watch_id: str, count: int) -> list[dict]:
    deadline = time.monotonic() + TIMEOUT
    while True:
        runs = http.get(f"{url}/api/watches/{watch_id}/runs").json()["runs"]
        if len([r for r in runs if r["finished_at"]]) >= count:
            return runs
        assert time.monotonic() < deadline, runs
        time.sleep(0.2)


def test_a_host_killed_between_runs_runs_the_next_one_exactly_once(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    warm_corpus(data_dir)
    port = free_port()
    settings = {
        "data_dir": str(data_dir),
        "reasoner": "offline",
        "search_provider": "local",
        "watch_min_interval_seconds": "5",
    }
    hosts: list[ServeProcess] = []
    try:
        with httpx.Client(timeout=30) as http:
            first = ServeProcess(port, tmp_path / "devhost.log", **settings)
            hosts.append(first)
            first.wait_ready(http)
            body = {"question": "How do Python generators work?", "mode": "search", "every": EVERY}
            created = http.post(f"{first.url}/api/watches", json=body)
            assert created.status_code == 201, created.text
            watch_id = created.json()["watch_id"]
            [run1] = finished(http, first.url, watch_id, 1)
            first.kill()  # the watch now waits on its timer for run 2

            second = ServeProcess(port, tmp_path / "devhost.log", **settings)
            hosts.append(second)
            second.wait_ready(http)
            runs = finished(http, second.url, watch_id, 3)
            sessions = http.get(f"{second.url}/api/chats/{watch_id}/sessions").json()["sessions"]
    finally:
        for host in hosts:
            host.kill()

    assert [r["n"] for r in runs] == [1, 2, 3], runs
    assert runs[0] == run1
    assert all(r["status"] == "completed" for r in runs), runs
    ids = [r["session_id"] for r in runs]
    assert ids == [f"{watch_id}-r{n}" for n in (1, 2, 3)]
    assert sorted(s["session_id"] for s in sessions) == sorted(ids)  # no session twice
    starts = [datetime.fromisoformat(r["started_at"]) for r in runs]
    # run 3 waited for its own slot after run 2: no catch-up burst after the restart
    assert (starts[2] - starts[1]).total_seconds() >= EVERY_S / 2, starts
