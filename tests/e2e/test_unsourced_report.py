"""A run whose findings lost every source is degraded, and its status says why.

The model (the OpenAI-protocol fake, over HTTP) researches normally but cites,
in every finding, a page it never read. Grounding drops those claims, so the
report has nothing to cite. The user must not see ``completed`` and
``degraded: false`` over a report without sources.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from shared.core.config import Settings
from tests.e2e.polling import wait_terminal
from tests.e2e.test_llm_deep_research import QUERY, RUN_TIMEOUT, schema_of, start
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    RecordedRequest,
    Reply,
    json_completion,
    schema_aware_responder,
)
from tests.fakes.small_corpus import write_corpus

pytestmark = pytest.mark.e2e

NEVER_READ = "https://never-read.example/made-up"
OPTIONS = {
    "num_agents": 1,
    "agent_max_steps": 3,
    "search_iterations": 1,
    "max_iterations": 2,
    "run_deep_search_first": False,
    "enable_clarifying_questions": False,
}


def citing_unread_pages(request: RecordedRequest) -> Reply:
    """The schema-aware fake, but each finding cites a URL no search returned."""
    reply = schema_aware_responder(request)
    if schema_of(request) != "FindingDraft":
        return reply
    draft = json.loads(reply.body["choices"][0]["message"]["content"])
    for key in draft["key_findings"]:
        key["source_urls"] = [NEVER_READ]
    return json_completion(draft)


def test_a_report_whose_findings_lost_every_source_is_degraded_and_says_why(
    start_devhost, tmp_path: Path
) -> None:
    with FakeOpenAIServer(citing_unread_pages) as llm:
        host = start_devhost(
            Settings(
                data_dir=tmp_path / "data",
                openai_base_url=llm.base_url,
                openai_api_key="test",
                search_provider="local",
                local_corpus_path=write_corpus(tmp_path / "corpus"),
            )
        )
        with httpx.Client(base_url=host.url, timeout=30) as api:
            session_id = start(api, query=QUERY, options=OPTIONS)
            view = wait_terminal(api, session_id, RUN_TIMEOUT)
            report = api.get(f"/api/research/{session_id}/report", params={"format": "json"})
        findings = [r for r in llm.requests if schema_of(r) == "FindingDraft"]

    assert findings, "no researcher wrote a finding"
    assert report.status_code == 200, report.text
    assert report.json()["sources"] == []
    assert view["status"] == "completed", view
    print("VIEW", json.dumps(view))
    print("REPORT", report.text)
    assert view["degraded"] is True, view
    (warning,) = [w for w in view["warnings"] if "no sources" in w["message"]]
    assert warning["phase"] == "writing_report"
    read = re.search(
        r"cite none of the pages read \((\d+); the model cited pages it never read",
        warning["message"],
    )
    assert read and int(read.group(1)) >= 1, warning
