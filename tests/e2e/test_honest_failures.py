"""A permanent failure is part of the result (issue 19 item 1, issue 23 item 3).

The OpenAI-protocol fake answers HTTP 400 to one kind of request; the real
``openai`` client, devhost and the public API do the rest. For each injected
failure the user must see, without reading logs: the status names the phase,
the warnings list it, the report's Limitations section says it, the request
that failed for good was not retried, and nothing claims full coverage.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from shared.core.config import Settings
from tests.e2e.polling import TERMINAL, wait_for
from tests.e2e.serve_process import free_port
from tests.e2e.test_faults import llm_settings, schema_of, two_agent_responder
from tests.fakes.openai_server import FakeOpenAIServer, RecordedRequest, Reply, error

pytestmark = pytest.mark.e2e

QUERY = "How does the Python global interpreter lock affect threads?"
OPTIONS = {
    "num_agents": 2,
    "agent_max_steps": 2,
    "max_iterations": 4,
    "run_deep_search_first": False,
    "enable_clarifying_questions": False,
}


class Refusing:
    """Answers like ``two_agent_responder`` but 400 to requests of one schema (the n-th on)."""

    def __init__(self, schema: str, from_call: int = 1, times: int = 1000) -> None:
        self.schema, self.from_call, self.times = schema, from_call, times
        self.seen = 0
        self.refused = 0
        self.reply = error(400)
        self.server = FakeOpenAIServer(self._respond)

    def _respond(self, request: RecordedRequest) -> Reply:
        if schema_of(request) == self.schema:
            self.seen += 1
            if self.seen >= self.from_call and self.refused < self.times:
                self.refused += 1
                return self.reply
        return two_agent_responder(request)


def run_with(start_devhost, tmp_path: Path, refusing: Refusing) -> tuple[dict, dict]:
    with refusing.server:
        host = start_devhost(llm_settings(tmp_path, refusing.server))
        with httpx.Client(base_url=host.url, timeout=30) as api:
            body = {"query": QUERY, "mode": "deep_research", "options": OPTIONS}
            started = api.post("/api/research", json=body)
            assert started.status_code == 202, started.text
            view = wait_for(api, started.json()["session_id"], TERMINAL, timeout=120)
            report = api.get(f"/api/research/{view['session_id']}/report", params={"format": "md"})
    assert report.status_code == 200, report.text
    return view, {"md": report.text}


def assert_told(view: dict, markdown: str, phase: str, words: str) -> None:
    assert phase in [w["phase"] for w in view["warnings"]], view["warnings"]
    assert view["degraded"] is True  # what a client branches on
    limitations = markdown.split("## Limitations", 1)
    assert len(limitations) == 2, "the report has no Limitations section"
    assert words in limitations[1].split("\n## ", 1)[0], limitations[1][:600]
    assert "covered every planned topic" not in markdown


def test_planning_refused_for_good(start_devhost, tmp_path: Path) -> None:
    refusing = Refusing("ResearchPlan")
    view, report = run_with(start_devhost, tmp_path, refusing)

    assert refusing.refused == 1, "a 400 must not be retried by Durable"
    assert view["status"] == "completed", view  # a report was still written
    assert view["error"].startswith("planning failed"), view["error"]
    assert_told(view, report["md"], "planning", "planning phase failed")


def test_one_researcher_refused_for_good(start_devhost, tmp_path: Path) -> None:
    refusing = Refusing("AgentAction", times=1)  # one researcher step, once
    view, report = run_with(start_devhost, tmp_path, refusing)

    assert refusing.refused == 1
    assert view["status"] == "completed", view
    assert view["progress"]["findings"] >= 1  # the other researchers went on
    assert_told(view, report["md"], "researching", "failed on")


def test_a_transient_failure_is_retried_by_durable_and_recovers(start_devhost, tmp_path) -> None:
    """A 503 past the client's own retries fails the activity once; Durable runs it again."""
    refusing = Refusing("ResearchPlan", times=1)
    refusing.reply = error(503)
    with refusing.server:
        settings = llm_settings(tmp_path, refusing.server, llm_max_retries=0)
        host = start_devhost(settings)
        with httpx.Client(base_url=host.url, timeout=30) as api:
            # a step to read a page too: a report without sources would be degraded
            options = {**OPTIONS, "agent_max_steps": 3}
            body = {"query": QUERY, "mode": "deep_research", "options": options}
            started = api.post("/api/research", json=body)
            view = wait_for(api, started.json()["session_id"], TERMINAL, timeout=120)

    assert refusing.refused == 1
    assert host.engine.stats["activity_failed:plan_research"] == 1
    assert host.engine.stats["activity:plan_research"] == 1  # the retry succeeded
    assert view["status"] == "completed" and "error" not in view, view
    assert view["warnings"] == [] and view["degraded"] is False, view["warnings"]
    assert view["progress"]["findings"] >= 1


def test_a_search_provider_that_is_down_is_in_the_status_and_the_answer(start_devhost, data_dir):
    """Nothing listens where SearXNG should be: the search still answers, and says why
    it has nothing (status warnings, degraded, the answer's Limitations)."""
    down = f"http://127.0.0.1:{free_port()}"
    settings = Settings(
        data_dir=data_dir,
        reasoner="offline",
        search_provider="searxng",
        searxng_url=down,
        activity_retry_max_attempts=1,
    )
    host = start_devhost(settings)
    with httpx.Client(base_url=host.url, timeout=30) as api:
        started = api.post(
            "/api/research", json={"query": "How do generators work?", "mode": "search"}
        )
        view = wait_for(api, started.json()["session_id"], TERMINAL, timeout=120)
        answer = api.get(f"/api/research/{view['session_id']}/report", params={"format": "md"})
    assert view["status"] == "completed" and view["degraded"] is True, view
    failed = [w["message"] for w in view["warnings"] if w["phase"] == "searching"]
    assert failed and all("searxng unreachable" in m for m in failed), view["warnings"]
    limitations = answer.text.split("## Limitations", 1)
    assert len(limitations) == 2, answer.text
    assert failed[0] in limitations[1]


def test_compression_failing_for_good_still_ends_in_a_report_that_says_so(
    start_devhost, tmp_path: Path
) -> None:
    """The deep search answer, evidence for compression, is unreadable by the time the
    researchers start (a torn write the store cannot fix): compression fails for good."""
    memory = tmp_path / "data" / "memory"
    torn: list[Path] = []

    def respond(request: RecordedRequest) -> Reply:
        if schema_of(request) == "AgentAction" and not torn:
            for answer in memory.glob("*/deep_search.json"):
                answer.write_text("{torn", encoding="utf-8")
                torn.append(answer)
        return two_agent_responder(request)

    with FakeOpenAIServer(respond) as server:
        host = start_devhost(llm_settings(tmp_path, server))
        with httpx.Client(base_url=host.url, timeout=30) as api:
            options = {**OPTIONS, "run_deep_search_first": True}
            body = {"query": QUERY, "mode": "deep_research", "options": options}
            started = api.post("/api/research", json=body)
            assert started.status_code == 202, started.text
            view = wait_for(api, started.json()["session_id"], TERMINAL, timeout=120)
            report = api.get(f"/api/research/{view['session_id']}/report", params={"format": "md"})

    assert torn, "the deep search answer was written before the researchers started"
    assert view["status"] == "completed", view  # a report was still written
    assert view["error"].startswith("compressing failed"), view["error"]
    assert report.status_code == 200, report.text
    assert_told(view, report.text, "compressing", "compression phase failed")
