"""The report's fallback chain and quality score end to end (issue 29 items 6-8).

devhost, the real ``openai`` client and the OpenAI-protocol fake: the fake answers
HTTP 400 to every report-writer request, so generation fails for good. The user
must get the research draft as the report (said so, in the status too), never the
minimal report, its links as [n] citations, the other pages read as "Also consulted",
and its quality score in the Markdown, report.json and the PDF.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.e2e.polling import TERMINAL, wait_for
from tests.e2e.test_faults import llm_settings, schema_of, two_agent_responder
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    RecordedRequest,
    Reply,
    error,
    json_completion,
)

pytestmark = pytest.mark.e2e

QUERY = "How does the Python global interpreter lock affect threads?"
OPTIONS = {
    "num_agents": 2,
    "agent_max_steps": 3,
    "max_iterations": 4,
    "run_deep_search_first": False,
    "enable_clarifying_questions": False,
}
URL = re.compile(r"corpus://[^\s\"'<>()\[\]]+")
DRAFT_FACTS = [
    f"Draft fact {i}: the lock is held while bytecode number {i} runs." for i in range(15)
]


def failing_writer(request: RecordedRequest) -> Reply:
    """The writer is refused for good; the supervisor's drafts carry facts we can find."""
    name = schema_of(request)
    if name == "ReportDraft":
        return error(400)
    reply = two_agent_responder(request)
    if name != "SupervisorReview":
        return reply
    review = json.loads(reply.body["choices"][0]["message"]["content"])
    review["draft_section"] = " ".join(DRAFT_FACTS) + " " + review["draft_section"]
    read = URL.findall(request.prompt_text)
    if read:  # a claim linked to a page the findings cite, as the prompt asks
        review["draft_section"] += f" The lock is released on blocking I/O ([page]({read[0]}))."
    return json_completion(review)


def test_a_writer_that_fails_for_good_gives_the_draft_as_the_report_with_its_score(
    start_devhost, tmp_path: Path
) -> None:
    with FakeOpenAIServer(failing_writer) as server:
        host = start_devhost(llm_settings(tmp_path, server))
        with httpx.Client(base_url=host.url, timeout=30) as api:
            body = {"query": QUERY, "mode": "deep_research", "options": OPTIONS}
            started = api.post("/api/research", json=body)
            assert started.status_code == 202, started.text
            sid = started.json()["session_id"]
            view = wait_for(api, sid, TERMINAL, timeout=150)
            markdown = api.get(f"/api/research/{sid}/report", params={"format": "md"}).text
            report = api.get(f"/api/research/{sid}/report", params={"format": "json"}).json()
            pdf = api.get(f"/api/research/{sid}/report.pdf")
    assert any(schema_of(r) == "ReportDraft" for r in server.requests)  # the writer was asked

    assert view["status"] == "completed", view  # the draft is a report, not a failure
    warned = [w for w in view["warnings"] if w["phase"] == "writing_report"]
    assert any("the report is the research draft" in w["message"] for w in warned), warned
    assert "this is the research draft" in markdown  # the note says what the reader holds
    assert DRAFT_FACTS[3] in markdown and "Research was completed" not in markdown

    score = report["quality_score"]
    assert isinstance(score, int) and 1 <= score <= 10
    assert f"*Research Quality Score: {score}/10*" in markdown
    # the draft's link is a citation; the other pages read are "Also consulted"
    assert "The lock is released on blocking I/O [1]." in markdown
    cited = {s["url"] for s in report["sources"]}
    consulted = {s["url"] for s in report["also_consulted"]}
    assert cited and consulted and not cited & consulted
    assert "### Also consulted" in markdown

    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    pdftotext = shutil.which("pdftotext")
    assert pdftotext, "pdftotext is part of the test toolchain"
    text = subprocess.run(
        [pdftotext, "-", "-"], input=pdf.content, capture_output=True, check=True
    ).stdout.decode()
    flat = " ".join(text.split())
    assert f"Research Quality Score: {score}/10" in flat and "Also consulted" in flat
