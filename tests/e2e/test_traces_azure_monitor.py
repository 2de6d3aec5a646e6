"""Traces reach Application Insights' ingestion API through the Azure Monitor distro.

devhost runs as its own process with only ``APPLICATIONINSIGHTS_CONNECTION_STRING``
set; the connection string's ingestion and live-metrics endpoints point at a
receiver here, which reads the envelopes the exporter posts to ``/v2.1/track``
(the Breeze format Application Insights ingests). Statsbeat (the SDK's own
usage reports to Microsoft) is switched off: the test sends nothing off the machine.
"""

from __future__ import annotations

import gzip
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from shared.tools.telemetry import ids
from tests.e2e.polling import wait_terminal
from tests.e2e.serve_process import ServeProcess, free_port
from tests.fakes.small_corpus import write_corpus

pytestmark = pytest.mark.e2e

QUERY = "How does the Python global interpreter lock affect threads?"
KEY = "00000000-0000-0000-0000-000000000000"


class Ingestion:
    """Application Insights' ingestion endpoint, as far as the exporter needs it."""

    def __init__(self) -> None:
        self.envelopes: list[dict] = []
        self._lock = threading.Lock()
        ingestion = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                if self.path.endswith("/v2.1/track"):
                    sent = json.loads(body)
                    with ingestion._lock:
                        ingestion.envelopes += sent
                    reply = {"itemsReceived": len(sent), "itemsAccepted": len(sent), "errors": []}
                else:  # live metrics' ping: nobody is watching
                    reply = {}
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def items(self) -> list[dict]:
        with self._lock:
            return list(self.envelopes)


@pytest.fixture
def ingestion() -> Iterator[Ingestion]:
    found = Ingestion()
    yield found
    found.server.shutdown()


def test_a_sessions_spans_arrive_as_one_application_insights_operation(
    tmp_path: Path, ingestion: Ingestion
) -> None:
    connection = (
        f"InstrumentationKey={KEY};IngestionEndpoint={ingestion.url};LiveEndpoint={ingestion.url}"
    )
    host = ServeProcess(
        free_port(),
        tmp_path / "devhost.log",
        data_dir=str(tmp_path / "data"),
        reasoner="offline",
        search_provider="local",
        local_corpus_path=str(write_corpus(tmp_path / "corpus")),
        applicationinsights_connection_string=connection,
        applicationinsights_statsbeat_disabled_all="true",
        otel_bsp_schedule_delay="100",
    )
    try:
        with httpx.Client(timeout=30) as http:
            host.wait_ready(http)
            started = http.post(f"{host.url}/api/research", json={"query": QUERY, "mode": "search"})
            assert started.status_code in (200, 202), started.text
            session_id = started.json()["session_id"]
            with httpx.Client(base_url=host.url, timeout=30) as api:
                assert wait_terminal(api, session_id, 120)["status"] == "completed"
            operation = format(ids.trace_id(session_id), "032x")
            items = _wait_for(ingestion, operation, "session search")
    finally:
        host.kill()

    dependencies = [
        i
        for i in items
        if i["name"].endswith("RemoteDependency") and i["tags"].get("ai.operation.id") == operation
    ]
    by_name = {i["data"]["baseData"]["name"]: i for i in dependencies}
    session = by_name["session search"]
    session_id_hex = format(ids.session_span_id(session_id), "016x")
    assert session["data"]["baseData"]["id"] == session_id_hex
    phases = {
        i["data"]["baseData"]["id"]: i
        for i in dependencies
        if i["data"]["baseData"]["name"].startswith("phase ")
    }
    assert phases and all(
        p["tags"]["ai.operation.parentId"] == session_id_hex for p in phases.values()
    )
    activities = [i for i in dependencies if i["data"]["baseData"]["name"].startswith("activity ")]
    assert activities
    assert all(i["tags"]["ai.operation.parentId"] in {*phases, session_id_hex} for i in activities)
    search = next(i for i in activities if i["data"]["baseData"]["name"] == "activity web_search")
    assert phases[search["tags"]["ai.operation.parentId"]]["data"]["baseData"]["name"] == (
        "phase searching"
    )
    # no query text and no URL in what was sent (OTEL_CAPTURE_CONTENT is off)
    sent = json.dumps(dependencies).lower()
    assert "interpreter lock" not in sent and "corpus://" not in sent


def _wait_for(ingestion: Ingestion, operation: str, name: str) -> list[dict]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        items = ingestion.items()
        if any(
            i["tags"].get("ai.operation.id") == operation
            and i.get("data", {}).get("baseData", {}).get("name") == name
            for i in items
        ):
            return items
        time.sleep(0.1)
    seen = sorted({str(i.get("data", {}).get("baseData", {}).get("name")) for i in items})
    pytest.fail(f"no {name!r} span reached the ingestion endpoint; it got {seen}")
