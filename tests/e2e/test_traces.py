"""Traces of a deep research, read from the OpenTelemetry SDK's in-memory exporter.

devhost replays the orchestrator at every event, as Durable does; the spans
come from activities and the completing activity, so each real execution is in
the trace once. The LLM reasoner talks to the OpenAI-protocol fake over HTTP.
"""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path

import httpx
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from shared.core.config import Settings
from shared.tools.telemetry import ids
from tests.e2e.polling import wait_for, wait_terminal
from tests.fakes.openai_server import FakeOpenAIServer, schema_aware_responder
from tests.fakes.small_corpus import write_corpus

pytestmark = pytest.mark.e2e

QUERY = "How does the Python global interpreter lock affect threads and asyncio programs?"
OPTIONS = {"num_agents": 2, "agent_max_steps": 2, "search_iterations": 1, "max_iterations": 3}


def in_memory_exporter() -> InMemorySpanExporter:
    """The process's one SDK provider (a provider can be set once), exporting to memory."""
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return exporter


def test_a_deep_research_is_one_trace_of_phases_activities_and_model_calls(
    start_devhost, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    exporter = in_memory_exporter()
    caplog.set_level(logging.DEBUG, logger="activities.common")
    with FakeOpenAIServer(schema_aware_responder) as fake_llm:
        settings = Settings(
            data_dir=tmp_path / "data",
            openai_base_url=fake_llm.base_url,
            openai_api_key="test",
            search_provider="local",
            local_corpus_path=write_corpus(tmp_path / "corpus"),
        )
        host = start_devhost(settings)
        with httpx.Client(base_url=host.url, timeout=30) as api:
            started = api.post("/api/research", json={"query": QUERY, "options": OPTIONS})
            assert started.status_code in (200, 202), started.text
            session_id = started.json()["session_id"]
            view = wait_terminal(api, session_id, 180)
            report = api.get(f"/api/research/{session_id}/report", params={"format": "json"})
        assert view["status"] == "completed", view
        model_requests = len(fake_llm.requests)

    trace_id = ids.trace_id(session_id)
    spans = [s for s in exporter.get_finished_spans() if s.context.trace_id == trace_id]
    by_id = {s.context.span_id: s for s in spans}
    parent = {s.context.span_id: s.parent.span_id if s.parent else None for s in spans}

    # one session span, the root; every other span of the trace hangs under it
    (session,) = [s for s in spans if s.name.startswith("session ")]
    assert session.name == "session deep_research" and session.parent is None
    assert session.context.span_id == ids.session_span_id(session_id)
    assert all(_root(s.context.span_id, parent) == session.context.span_id for s in spans)

    # phases under the session, each emitted once, in the order the run went
    phases = [s for s in spans if s.name.startswith("phase ")]
    names = [s.attributes["research.phase"] for s in sorted(phases, key=_start)]
    assert names[:1] == ["deep_search"] and "researching" in names and "writing_report" in names
    assert len({(s.name, s.attributes["research.phase.seq"]) for s in phases}) == len(phases)
    assert all(parent[s.context.span_id] == session.context.span_id for s in phases)

    # activities under their phase (the bookkeeping ones under the session), once per run
    activities = [s for s in spans if s.name.startswith("activity ")]
    counted = Counter(s.attributes["durable.activity"] for s in activities)
    ran = {k.split(":", 1)[1]: v for k, v in host.engine.stats.items() if k.startswith("activity:")}
    assert counted == ran
    assert host.engine.stats["episodes"] >= 10  # the orchestrator was replayed that often
    researcher = next(s for s in activities if s.name == "activity run_researcher")
    assert by_id[parent[researcher.context.span_id]].name == "phase researching"

    # every model call the fake answered is one span with the GenAI conventions
    calls = [s for s in spans if s.name.startswith("chat ")]
    assert len(calls) == model_requests
    for call in calls:
        assert call.attributes["gen_ai.system"] == "openai"
        assert call.attributes["gen_ai.request.model"]
        assert call.attributes["gen_ai.usage.input_tokens"] > 0
        assert call.attributes["gen_ai.usage.output_tokens"] > 0
        assert by_id[parent[call.context.span_id]].name.startswith("activity ")
    tokens = sum(c.attributes["gen_ai.usage.input_tokens"] for c in calls)
    assert tokens == view["usage"]["prompt_tokens"]
    assert session.attributes["deep_research.input_tokens"] == view["usage"]["prompt_tokens"]

    # searches and page reads are spans too, and carry no query text or URL by default
    assert any(s.name == "search" for s in spans) and any(s.name == "fetch page" for s in spans)
    values = [str(v) for s in spans for v in s.attributes.values()]
    assert not any("interpreter lock" in v.lower() or "://" in v for v in values)

    # the status and report.json say where time and money went; the phases add up
    for figures in (view, report.json()):
        assert [p["phase"] for p in figures["phases"]] == names
        for key in ("llm_calls", "prompt_tokens", "completion_tokens"):
            assert sum(p["usage"][key] for p in figures["phases"]) == view["usage"][key]
        cost = sum(p["usage"]["cost"] for p in figures["phases"])
        assert cost == pytest.approx(view["usage"]["cost"], abs=1e-5)
        assert sum(p["seconds"] for p in figures["phases"]) > 0
    researching = next(p for p in view["phases"] if p["phase"] == "researching")
    assert researching["usage"]["llm_calls"] > 0

    # log lines written during an activity carry the session's trace id
    traced = [r for r in caplog.records if getattr(r, "trace_id", "") == format(trace_id, "032x")]
    assert traced


def _start(span: ReadableSpan) -> int:
    return span.start_time or 0


def _root(span_id: int, parent: dict[int, int | None]) -> int:
    while parent.get(span_id) in parent:
        span_id = parent[span_id]  # type: ignore[assignment]
    return span_id


def test_a_cancelled_run_still_has_its_session_span(start_devhost, data_dir: Path) -> None:
    """Cancelling terminates the orchestration: the API writes the session's span instead."""
    exporter = in_memory_exporter()
    host = start_devhost(Settings(data_dir=data_dir, reasoner="offline", search_provider="local"))
    with httpx.Client(base_url=host.url, timeout=30) as api:
        options = {"run_deep_search_first": False}
        started = api.post("/api/research", json={"query": "GIL", "options": options})
        session_id = started.json()["session_id"]
        wait_for(api, session_id, {"waiting_clarification"}, 120)
        assert api.post(f"/api/research/{session_id}/cancel").status_code == 202

    trace_id = ids.trace_id(session_id)
    spans = [s for s in exporter.get_finished_spans() if s.context.trace_id == trace_id]
    (session,) = [s for s in spans if s.name == "session deep_research"]
    assert session.attributes["research.status"] == "cancelled"
    assert session.context.span_id == ids.session_span_id(session_id)
    assert any(s.name == "activity clarify" for s in spans)
