"""Issue 29 items 4 and 5 end to end: devhost + the OpenAI-protocol fake over HTTP,
nothing patched.

The fake analyst answers SEARCH_REQUIRED with one new query the first time it is
asked and READY after: exactly one extra round of searches runs (one researcher,
its finding in the memory files), the analyst reads the findings again, the writer
reads the analysis and the report carries a methodology note in Markdown, JSON
and PDF; the status shows the chain's stages with their iterations.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.e2e.test_deep_research_memory import folder, run_research
from tests.e2e.test_faults import llm_settings, schema_of, two_agent_responder
from tests.e2e.test_llm_deep_research import RUN_TIMEOUT
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    FirstTime,
    RecordedRequest,
    Reply,
    Responder,
    json_completion,
)

pytestmark = pytest.mark.e2e

QUERY = "How does the Python global interpreter lock affect threads?"
NEW_QUERY = "GIL switch interval sys.setswitchinterval default"
MISSING = "How often the interpreter switches threads is not in the findings."
OPTIONS = {
    "num_agents": 2,
    "agent_max_steps": 3,
    "max_iterations": 6,
    "max_supervisor_calls": 1,
    "run_deep_search_first": False,
    "enable_clarifying_questions": False,
}


def analyst_asking_once() -> Responder:
    first_time = FirstTime()

    def respond(request: RecordedRequest) -> Reply:
        reply = two_agent_responder(request)
        if schema_of(request) != "Analysis":
            return reply
        analysis = json.loads(reply.body["choices"][0]["message"]["content"])
        first = first_time()
        analysis.update(
            verdict="SEARCH_REQUIRED" if first else "READY",
            missing_information=[MISSING] if first else [],
            new_queries=[NEW_QUERY] if first else [],
        )
        return json_completion(analysis)

    return respond


def test_an_analyst_search_required_runs_exactly_one_search_round(
    start_devhost, tmp_path: Path
) -> None:
    with FakeOpenAIServer(analyst_asking_once()) as server:
        host = start_devhost(llm_settings(tmp_path, server))
        view = run_research(host, QUERY, OPTIONS, timeout=RUN_TIMEOUT)
        with httpx.Client(base_url=host.url, timeout=30) as api:
            sid = view["session_id"]
            markdown = api.get(f"/api/research/{sid}/report", params={"format": "md"}).text
            report = api.get(f"/api/research/{sid}/report", params={"format": "json"}).json()
            pdf = api.get(f"/api/research/{sid}/report.pdf")
    assert view["status"] == "completed", view
    root = folder(host, view["session_id"])

    analyses = [r for r in server.requests if schema_of(r) == "Analysis"]
    assert len(analyses) == 2  # before the round, and again over what it found
    steps = [r for r in server.requests if schema_of(r) == "AgentAction"]
    asked = [r for r in steps if NEW_QUERY in r.prompt_text]
    assert asked  # a researcher worked on the new query
    researched = [p.read_text().splitlines()[0] for p in (root / "items").glob("item_*.md")]
    assert researched.count(f"# Finding: {NEW_QUERY}") == 1  # one round, one researcher
    analyst = (root / "analyst.md").read_text()
    assert "## Analysis 1" in analyst and "## Analysis 2" in analyst
    assert f"- {NEW_QUERY}" in analyst and MISSING in analyst
    writer = [r for r in server.requests if schema_of(r) == "ReportDraft"]
    assert writer and "<analysis>" in writer[0].prompt_text
    assert server.requests.index(writer[0]) > server.requests.index(analyses[-1])

    note = report["methodology_note"]
    assert note and f"## Methodology\n\n{note}" in markdown
    assert pdf.status_code == 200
    text = subprocess.run(
        [shutil.which("pdftotext") or "pdftotext", "-", "-"],
        input=pdf.content,
        capture_output=True,
        check=True,
    ).stdout.decode()
    assert "Methodology" in text

    chain = view["progress"]["chain"]
    stages = [c["stage"] for c in chain]
    assert stages[:5] == [
        "analyst_analyzing",
        "analyst_search_required",
        "analyst_searching",
        "analyst_analyzing",
        "analyst_draft_ready",
    ]
    assert [(c["iteration"], c["of"]) for c in chain[:5]] == [
        (1, 2),
        (1, 2),
        (1, 1),
        (2, 2),
        (2, 2),
    ]
    assert "critic_reviewing" in stages and "critic_review_complete" in stages
    review = next(c for c in chain if c["stage"] == "critic_review_complete")
    assert review["role"] == "critic" and review["status"] in ("PASS", "WARN", "REJECT")
