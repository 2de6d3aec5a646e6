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
from collections.abc import Iterator
from pathlib import Path

import pytest

from shared.tools.telemetry import ids
from tests.e2e.traced_run import traced_search
from tests.fakes.web import FixtureServer, Reply, Request

pytestmark = pytest.mark.e2e

KEY = "00000000-0000-0000-0000-000000000000"
TRACK = "/v2.1/track"


def _accept(request: Request) -> Reply:
    """What the ingestion API answers: every item accepted."""
    count = len(_envelopes(request))
    reply = {"itemsReceived": count, "itemsAccepted": count, "errors": []}
    return Reply(200, json.dumps(reply).encode(), {"Content-Type": "application/json"})


def _envelopes(request: Request) -> list[dict]:
    body = request.body
    if request.headers.get("content-encoding") == "gzip":
        body = gzip.decompress(body)
    return json.loads(body)


@pytest.fixture
def ingestion() -> Iterator[FixtureServer]:
    """Application Insights' ingestion endpoint, as far as the exporter needs it."""
    server = FixtureServer()
    server.routes[TRACK] = _accept
    yield server.start()
    server.stop()


def items_of(ingestion: FixtureServer) -> list[dict]:
    return [e for r in list(ingestion.requests) if r.path == TRACK for e in _envelopes(r)]


def named(item: dict) -> str | None:
    return item.get("data", {}).get("baseData", {}).get("name")


def operation_of(session_id: str) -> str:
    return format(ids.trace_id(session_id), "032x")


def test_a_sessions_spans_arrive_as_one_application_insights_operation(
    tmp_path: Path, ingestion: FixtureServer
) -> None:
    endpoint = ingestion.url("/")
    session_id = traced_search(
        tmp_path,
        lambda sid: any(
            i["tags"].get("ai.operation.id") == operation_of(sid) and named(i) == "session search"
            for i in items_of(ingestion)
        ),
        applicationinsights_connection_string=(
            f"InstrumentationKey={KEY};IngestionEndpoint={endpoint};LiveEndpoint={endpoint}"
        ),
        applicationinsights_statsbeat_disabled_all="true",
    )
    operation = operation_of(session_id)
    dependencies = [
        i
        for i in items_of(ingestion)
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
