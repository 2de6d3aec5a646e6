"""One search session on a devhost process whose traces go to a receiver the test runs.

The trace tests differ in the receiver (OTLP protobuf, Application Insights'
ingestion API) and in what they check, not in how the session runs: devhost as its
own process, configured only by its environment, the small offline corpus, and a
wait for the session span, which the host exports last.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.e2e.polling import wait_terminal
from tests.e2e.serve_process import ServeProcess, free_port
from tests.fakes.small_corpus import write_corpus

QUERY = "How does the Python global interpreter lock affect threads?"
SPAN_DEADLINE = 30.0


def traced_search(tmp_path: Path, arrived: Callable[[str], bool], **settings: str) -> str:
    """Run ``QUERY`` in search mode to its end; poll ``arrived(session_id)`` until the
    receiver holds the session span (or fail), then stop the host. The session id."""
    host = ServeProcess(
        free_port(),
        tmp_path / "devhost.log",
        data_dir=str(tmp_path / "data"),
        reasoner="offline",
        search_provider="local",
        local_corpus_path=str(write_corpus(tmp_path / "corpus")),
        otel_bsp_schedule_delay="100",  # the SDK's batch delay, so the test waits less
        **settings,
    )
    try:
        with httpx.Client(timeout=30) as http:
            host.wait_ready(http)
            started = http.post(f"{host.url}/api/research", json={"query": QUERY, "mode": "search"})
            assert started.status_code in (200, 202), started.text
            session_id = started.json()["session_id"]
            with httpx.Client(base_url=host.url, timeout=30) as api:
                assert wait_terminal(api, session_id, 120)["status"] == "completed"
        deadline = time.monotonic() + SPAN_DEADLINE
        while not arrived(session_id):
            if time.monotonic() > deadline:
                pytest.fail("the session span did not reach the receiver")
            time.sleep(0.1)
    finally:
        host.kill()
    return session_id
