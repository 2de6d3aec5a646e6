"""Fault injection, end to end: devhost + the HTTP API, with real servers misbehaving.

Each test breaks one thing a production run meets (a rate-limited or flaky
model, a dead search provider, a slow page, an agent whose every step fails,
a webhook receiver that is down, a second writer on the session document)
and checks what a user would see: the research still ends with a report, no
request gets a 5xx, and the gap is named rather than hidden. Nothing of ours
is patched: the faults come from the fakes on 127.0.0.1.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from shared.adapters.reasoning import call_budget
from shared.adapters.stores.sqlite import SqliteSessionStore
from shared.core.config import ResearchOptions, Settings
from tests.e2e.polling import wait_terminal
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    RecordedRequest,
    Reply,
    error,
    json_completion,
    malformed,
    schema_aware_responder,
)
from tests.fakes.small_corpus import write_corpus
from tests.fakes.web import FixtureServer, build_fixture_site
from tests.fakes.web import Reply as WebReply
from tests.fakes.webhook_receiver import closed_port_url

pytestmark = pytest.mark.e2e

QUERY = "How does the Python global interpreter lock affect threads and asyncio programs?"
SMALL = {
    "num_agents": 2,
    "agent_max_steps": 3,
    "search_iterations": 1,
    "max_iterations": 3,
    "max_supervisor_calls": 2,
    "enable_clarifying_questions": False,
}
NO_DEEP_SEARCH = {**SMALL, "run_deep_search_first": False}
RUN_TIMEOUT = 150.0
TOPICS = ["Thread scheduling under the lock", "The asyncio event loop", "Free-threaded builds"]


# -- the model: the schema-aware fake with a plan worth two agents ---------------------


def schema_of(request: RecordedRequest) -> str:
    response_format = request.json.get("response_format") or {}
    return (response_format.get("json_schema") or {}).get("name", "text")


def two_agent_responder(request: RecordedRequest) -> Reply:
    """Schema-aware replies, but a complex query, named topics and two named agents."""
    reply = schema_aware_responder(request)
    name = schema_of(request)
    if name not in ("QueryAnalysis", "ResearchPlan", "Profiles"):
        return reply
    data = json.loads(reply.body["choices"][0]["message"]["content"])
    if name == "QueryAnalysis":
        data.update(complexity="complex", recommended_agents=5)
    elif name == "ResearchPlan":
        for topic, title in zip(data["topics"], TOPICS, strict=False):
            topic["title"] = title
    else:
        for profile, agent in zip(data["profiles"], ("Alpha", "Beta", "Gamma"), strict=False):
            profile["name"] = f"Agent {agent}"
    return json_completion(data)


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(two_agent_responder) as server:
        yield server


def llm_settings(tmp_path: Path, fake: FakeOpenAIServer, **extra: Any) -> Settings:
    fields = {
        "data_dir": tmp_path / "data",
        "openai_base_url": fake.base_url,
        "openai_api_key": "test",
        "search_provider": "local",
        "local_corpus_path": write_corpus(tmp_path / "corpus"),
        **extra,
    }
    return Settings(**fields)


# -- the HTTP side -----------------------------------------------------------------------


def start(api: httpx.Client, options: dict, **body: Any) -> str:
    response = api.post("/api/research", json={"query": QUERY, "options": options, **body})
    assert response.status_code in (200, 202), response.text
    return response.json()["session_id"]


def report_of(api: httpx.Client, session_id: str) -> dict:
    response = api.get(f"/api/research/{session_id}/report", params={"format": "json"})
    assert response.status_code == 200, response.text
    return response.json()


def wait_for(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- the model misbehaves in the middle of a run ---------------------------------------


class Burst:
    """Queued faulty replies that remember being served (the fake pops one per request)."""

    def __init__(self) -> None:
        self.served: list[str] = []

    def of(self, label: str, make: Callable[[RecordedRequest], Reply]):
        def serve(request: RecordedRequest) -> Reply:
            self.served.append(label)
            return make(request)

        return serve


def test_llm_errors_mid_run_still_end_in_a_report(
    fake_llm: FakeOpenAIServer, start_devhost, tmp_path: Path
) -> None:
    settings = llm_settings(tmp_path, fake_llm, llm_timeout_seconds=2.0)
    host = start_devhost(settings)
    burst = Burst()
    slow = burst.of("timeout", lambda r: replace(schema_aware_responder(r), delay=4.0))
    faults = [
        burst.of("429", lambda r: error(429, retry_after=0.2)),
        burst.of("500", lambda r: error(500)),
        slow,
        burst.of("malformed", lambda r: malformed()),
        burst.of("malformed", lambda r: malformed()),
        # More 503s in a row than the client retries: an activity attempt fails
        # and the orchestrator's retry has to carry the run.
        *[burst.of("503", lambda r: error(503)) for _ in range(6)],
    ]
    with httpx.Client(base_url=host.url, timeout=30) as api:
        session_id = start(api, SMALL)
        wait_for(lambda: len(fake_llm.requests) >= 6, 60, "the run to reach the model")
        fake_llm.enqueue(*faults)
        view = wait_terminal(api, session_id, RUN_TIMEOUT)
        report = report_of(api, session_id)

    assert len(burst.served) == len(faults), "the whole burst was served mid-run"
    assert view["status"] == "completed", view
    assert len(report["sections"]) >= 3 and report["executive_summary"]
    transport_failures = sum(1 for label in burst.served if label in ("429", "500", "503"))
    transport_failures += 1  # the timed-out request got no answer the client read
    answered = len(fake_llm.requests) - transport_failures
    # Failed requests are not billed; a failed activity attempt's usage is lost.
    assert 0 < view["usage"]["llm_calls"] <= answered
    caps = settings.caps_for(ResearchOptions(**SMALL))
    bound = call_budget.max_llm_calls(
        caps, repairs=settings.max_structured_output_retries, activity_attempts=3
    )
    assert answered <= bound


# -- search and fetch faults -------------------------------------------------------------


def test_search_provider_down_degrades_to_a_report_without_sources(
    fake_llm: FakeOpenAIServer, start_devhost, tmp_path: Path
) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    host = start_devhost(
        llm_settings(tmp_path, fake_llm, search_provider="searxng", searxng_url=dead)
    )
    with httpx.Client(base_url=host.url, timeout=30) as api:
        session_id = start(api, SMALL)
        view = wait_terminal(api, session_id, RUN_TIMEOUT)
        report = report_of(api, session_id)

    assert view["status"] == "completed", view
    # Nothing could be searched, so nothing is cited: no invented sources, and the
    # reader is told the report is not backed by any.
    assert report["sources"] == []
    assert report["confidence_level"] == "low"
    assert any("No source could be read" in w for w in report["warnings"]), report["warnings"]
    stats = host.engine.stats  # the search was tried (each attempt failed or came back empty)
    assert stats["activity:web_search"] + stats["activity_failed:web_search"] >= 1


def slow_site() -> FixtureServer:
    """The fixture site plus a SearXNG-shaped /search that points at /article and /slow."""
    site = build_fixture_site()

    def search(request) -> WebReply:
        results = [
            {"url": site.url(path), "title": title, "content": "The GIL and threads."}
            for path, title in (
                ("/article", "Understanding the GIL"),
                ("/slow", "A page that never arrives"),
            )
        ]
        body = json.dumps({"query": request.query["q"][0], "results": results}).encode()
        return WebReply(200, body, {"Content-Type": "application/json"})

    site.routes["/search"] = search
    return site.start()


def test_fetch_timeouts_skip_the_page_and_keep_the_rest(
    fake_llm: FakeOpenAIServer, start_devhost, tmp_path: Path
) -> None:
    site = slow_site()
    try:
        settings = llm_settings(
            tmp_path,
            fake_llm,
            search_provider="searxng",
            searxng_url=site.url(""),
            fetch_allowed_hosts=f"127.0.0.1:{site.port}",
            fetch_timeout_seconds=1.0,
        )
        host = start_devhost(settings)
        with httpx.Client(base_url=host.url, timeout=30) as api:
            session_id = start(api, SMALL)
            view = wait_terminal(api, session_id, RUN_TIMEOUT)
            report = report_of(api, session_id)
    finally:
        site.stop()

    assert view["status"] == "completed", view
    assert site.hits("/slow") >= 1, "the slow page was tried"
    cited = {s["url"] for s in report["sources"]}
    assert site.url("/article") in cited
    assert site.url("/slow") not in cited


# -- an agent that always fails ------------------------------------------------------------


def test_an_agent_that_always_fails_leaves_a_named_gap(start_devhost, tmp_path: Path) -> None:
    def beta_breaks(request: RecordedRequest) -> Reply:
        if schema_of(request) == "AgentAction" and "Agent Beta" in request.prompt_text:
            return malformed()
        return two_agent_responder(request)

    with FakeOpenAIServer(beta_breaks) as fake:
        host = start_devhost(llm_settings(tmp_path, fake))
        with httpx.Client(base_url=host.url, timeout=30) as api:
            session_id = start(api, NO_DEEP_SEARCH)
            view = wait_terminal(api, session_id, RUN_TIMEOUT)
            report = report_of(api, session_id)

    assert view["status"] == "completed", view
    message = view["progress"]["message"]
    assert "agent 2 failed" in message and any(topic in message for topic in TOPICS), message
    assert "StructuredOutputError" in message
    # Agent Alpha's work made it into the report.
    assert view["progress"]["findings"] >= 1 and report["sources"]


# -- delivery and storage faults -----------------------------------------------------------


def test_webhook_receiver_down_is_recorded_not_fatal(
    fake_llm: FakeOpenAIServer, start_devhost, tmp_path: Path
) -> None:
    url = closed_port_url()
    allowed = url.split("/")[2]
    host = start_devhost(llm_settings(tmp_path, fake_llm, webhook_allowed_hosts=allowed))
    with httpx.Client(base_url=host.url, timeout=30) as api:
        session_id = start(api, NO_DEEP_SEARCH, callback_url=url)
        view = wait_terminal(api, session_id, RUN_TIMEOUT)
        assert host.engine.wait(session_id, RUN_TIMEOUT) is not None
    assert view["status"] == "completed", view
    store = SqliteSessionStore(host.settings.data_dir / "sessions.sqlite3")
    try:
        deliveries = store.get(session_id).webhook_deliveries
    finally:
        store.close()
    assert [d["event"] for d in deliveries] == ["completed"]
    assert deliveries[0]["ok"] is False and deliveries[0]["attempts"] >= 1


def test_concurrent_writes_to_the_session_do_not_lose_the_runs_updates(
    fake_llm: FakeOpenAIServer, start_devhost, tmp_path: Path
) -> None:
    host = start_devhost(llm_settings(tmp_path, fake_llm))
    # A second writer on the same document (another worker, an operator tool).
    other = SqliteSessionStore(host.settings.data_dir / "sessions.sqlite3")
    stop = threading.Event()
    writes = []

    def hammer(session_id: str) -> None:
        while not stop.is_set():
            record = other.update(session_id, lambda r: None)
            writes.append(record.etag)

    try:
        with httpx.Client(base_url=host.url, timeout=30) as api:
            session_id = start(api, NO_DEEP_SEARCH)
            writer = threading.Thread(target=hammer, args=(session_id,), daemon=True)
            writer.start()
            view = wait_terminal(api, session_id, RUN_TIMEOUT)
            stop.set()
            writer.join(timeout=10)
    finally:
        stop.set()
        other.close()
    assert len(writes) > 10, "the second writer really competed"
    assert view["status"] == "completed", view
    assert view["result"]["report"]["sections"] >= 3
    assert view["usage"]["llm_calls"] == len(fake_llm.requests)
    assert view["progress"]["findings"] >= 1
