"""Traces leave a real host as OTLP/HTTP, and a receiver decodes the protobuf they carry.

devhost runs as its own process configured only by the environment
(``OTEL_EXPORTER_OTLP_ENDPOINT``, ``OTEL_CAPTURE_CONTENT``); the receiver here
parses each POST to ``/v1/traces`` with the OTLP protobuf classes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from shared.tools.telemetry import ids
from tests.e2e.polling import wait_terminal
from tests.e2e.serve_process import ServeProcess, free_port
from tests.fakes.small_corpus import write_corpus

pytestmark = pytest.mark.e2e

QUERY = "How does the Python global interpreter lock affect threads?"


class Receiver:
    """An OTLP/HTTP trace receiver: every span it was sent, with its service name."""

    def __init__(self) -> None:
        self.spans: list[tuple[str, object]] = []
        self.content_types: set[str] = set()
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                with receiver._lock:
                    receiver.content_types.add(self.headers["Content-Type"])
                    for resource_spans in request.resource_spans:
                        service = next(
                            a.value.string_value
                            for a in resource_spans.resource.attributes
                            if a.key == "service.name"
                        )
                        for scope in resource_spans.scope_spans:
                            receiver.spans += [(service, s) for s in scope.spans]
                self.send_response(200 if self.path == "/v1/traces" else 404)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def received(self) -> list[tuple[str, object]]:
        with self._lock:
            return list(self.spans)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    yield found
    found.server.shutdown()


def test_spans_reach_an_otlp_receiver_as_protobuf(tmp_path: Path, receiver: Receiver) -> None:
    host = ServeProcess(
        free_port(),
        tmp_path / "devhost.log",
        data_dir=str(tmp_path / "data"),
        reasoner="offline",
        search_provider="local",
        local_corpus_path=str(write_corpus(tmp_path / "corpus")),
        otel_exporter_otlp_endpoint=receiver.url,
        otel_capture_content="true",
        otel_bsp_schedule_delay="100",  # the SDK's batch delay, so the test waits less
    )
    try:
        with httpx.Client(timeout=30) as http:
            host.wait_ready(http)
            started = http.post(f"{host.url}/api/research", json={"query": QUERY, "mode": "search"})
            assert started.status_code in (200, 202), started.text
            session_id = started.json()["session_id"]
            with httpx.Client(base_url=host.url, timeout=30) as api:
                assert wait_terminal(api, session_id, 120)["status"] == "completed"
            trace_id = ids.trace_id(session_id).to_bytes(16, "big")
            spans = _wait_for_session_span(receiver, trace_id)
    finally:
        host.kill()

    assert receiver.content_types == {"application/x-protobuf"}
    assert {service for service, _ in spans} == {"deep-research"}
    mine = [span for _, span in spans if span.trace_id == trace_id]
    (session,) = [s for s in mine if s.name == "session search"]
    assert session.span_id == ids.session_span_id(session_id).to_bytes(8, "big")
    phases = {s.span_id: s for s in mine if s.name.startswith("phase ")}
    assert {p.name for p in phases.values()} >= {"phase planning", "phase searching"}
    assert all(p.parent_span_id == session.span_id for p in phases.values())
    activities = [s for s in mine if s.name.startswith("activity ")]
    assert activities and all(s.parent_span_id in {*phases, session.span_id} for s in activities)
    planning = next(s for s in activities if s.name == "activity plan_queries")
    assert phases[planning.parent_span_id].name == "phase planning"
    # OTEL_CAPTURE_CONTENT=true: the pages read are named on their spans
    fetched = [s for s in mine if s.name == "fetch page"]
    assert fetched
    urls = {a.value.string_value for s in fetched for a in s.attributes if a.key == "url.full"}
    assert urls and all("://" in url for url in urls)


def _wait_for_session_span(receiver: Receiver, trace_id: bytes) -> list[tuple[str, object]]:
    """The session span is emitted last; poll until it arrived (or fail at the deadline)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        spans = receiver.received()
        if any(s.trace_id == trace_id and s.name.startswith("session ") for _, s in spans):
            return spans
        time.sleep(0.1)
    pytest.fail("no session span reached the receiver")
