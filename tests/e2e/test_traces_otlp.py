"""Traces leave a real host as OTLP/HTTP, and a receiver decodes the protobuf they carry.

devhost runs as its own process configured only by the environment
(``OTEL_EXPORTER_OTLP_ENDPOINT``, ``OTEL_CAPTURE_CONTENT``); the receiver here
parses each POST to ``/v1/traces`` with the OTLP protobuf classes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from shared.tools.telemetry import ids
from tests.e2e.traced_run import traced_search
from tests.fakes.web import FixtureServer, Reply

pytestmark = pytest.mark.e2e


@pytest.fixture
def receiver() -> Iterator[FixtureServer]:
    """An OTLP/HTTP trace receiver: it accepts what is posted to ``/v1/traces``."""
    server = FixtureServer()
    server.routes["/v1/traces"] = lambda request: Reply(200)
    yield server.start()
    server.stop()


def spans_of(receiver: FixtureServer) -> list[tuple[str, object]]:
    """Every span posted so far, with the service name of its resource."""
    spans: list[tuple[str, object]] = []
    for request in list(receiver.requests):
        if request.path != "/v1/traces":
            continue
        sent = ExportTraceServiceRequest()
        sent.ParseFromString(request.body)
        for resource_spans in sent.resource_spans:
            attributes = resource_spans.resource.attributes
            service = next(a.value.string_value for a in attributes if a.key == "service.name")
            for scope in resource_spans.scope_spans:
                spans += [(service, s) for s in scope.spans]
    return spans


def trace_of(session_id: str) -> bytes:
    return ids.trace_id(session_id).to_bytes(16, "big")


def test_spans_reach_an_otlp_receiver_as_protobuf(tmp_path: Path, receiver: FixtureServer) -> None:
    session_id = traced_search(
        tmp_path,
        lambda sid: any(
            s.trace_id == trace_of(sid) and s.name.startswith("session ")
            for _, s in spans_of(receiver)
        ),
        otel_exporter_otlp_endpoint=receiver.url(""),
        otel_capture_content="true",
    )
    trace_id = trace_of(session_id)
    spans = spans_of(receiver)

    assert {r.headers["content-type"] for r in receiver.requests} == {"application/x-protobuf"}
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
