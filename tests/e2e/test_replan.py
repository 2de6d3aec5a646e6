"""Issue 29 end to end: devhost + the OpenAI-protocol fake over HTTP, nothing patched.

- A supervisor that answers "replan" once: the new plan's todos run, the old
  pending ones are dropped, and main.md records both plans with the reason.
- A supervisor-call limit of one: findings that arrive after the last review
  still reach draft_report.md before the report is written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from shared.core.config import Settings
from tests.e2e.test_deep_research_memory import folder, run_research
from tests.e2e.test_llm_deep_research import RUN_TIMEOUT, schema_of
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    FirstTime,
    RecordedRequest,
    Reply,
    Responder,
    json_completion,
    schema_aware_responder,
)
from tests.fakes.small_corpus import write_corpus

pytestmark = pytest.mark.e2e

QUESTION = "How does the Python global interpreter lock affect threads?"
REASON = "The findings drift to packaging; the question is about threads and the GIL."
NEW_TOPICS = ("Replanned: GIL switching interval", "Replanned: threads releasing the GIL")
OPTIONS = {
    "num_agents": 2,
    "agent_max_steps": 3,
    "max_iterations": 6,
    "run_deep_search_first": False,
    "enable_clarifying_questions": False,
}


def replanning_supervisor() -> Responder:
    """The schema-aware fake, but the first review says the direction is wrong, and the
    plan asked for after it (its prompt carries the <replan> block) has new topics."""
    first_time = FirstTime()

    def respond(request: RecordedRequest) -> Reply:
        name = schema_of(request)
        if name == "SupervisorReview":
            reply = schema_aware_responder(request)
            review = json.loads(reply.body["choices"][0]["message"]["content"])
            fresh = first_time()
            if "## Review" not in request.prompt_text and fresh:
                review.update(decision="replan", notes=REASON, new_todos=[])
            elif review.get("decision") == "replan":
                review["decision"] = "continue"
            return json_completion(review)
        if name == "ResearchPlan" and "<replan>" in request.prompt_text:
            topics = [
                {
                    "id": n,
                    "title": title,
                    "priority": 1,
                    "queries": [f"python GIL {title.split(': ')[1]}"],
                    "rationale": "the direction the supervisor asked for",
                }
                for n, title in enumerate(NEW_TOPICS, start=1)
            ]
            return json_completion({"summary": "Threads and the GIL, directly.", "topics": topics})
        return schema_aware_responder(request)

    return respond


@pytest.fixture
def replanning_llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(replanning_supervisor()) as server:
        yield server


def llm_settings(server: FakeOpenAIServer, tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        reasoner="llm",
        openai_base_url=server.base_url,
        openai_api_key="test",
        search_provider="local",
        local_corpus_path=write_corpus(tmp_path / "corpus"),
    )


def test_a_replan_runs_the_new_plans_todos_and_main_md_records_both_plans(
    replanning_llm: FakeOpenAIServer, start_devhost, tmp_path: Path
) -> None:
    host = start_devhost(llm_settings(replanning_llm, tmp_path))
    view = run_research(host, QUESTION, OPTIONS, timeout=RUN_TIMEOUT)
    assert view["status"] == "completed", view
    root = folder(host, view["session_id"])

    plans = [r for r in replanning_llm.requests if schema_of(r) == "ResearchPlan"]
    assert len(plans) == 2 and REASON in plans[1].prompt_text  # the planner was told why
    main = (root / "main.md").read_text()
    old_plan = main.partition("## Research Plan")[2].partition("## Key Insights")[0]
    old_titles = re.findall(r"(?m)^- \*\*(.+?)\*\*", old_plan)
    assert old_titles and not set(old_titles) & set(NEW_TOPICS)
    replan = main.partition("## Replan 1 - ")[2]
    assert f"**Reason:** {REASON}" in replan
    previous, _, new = replan.partition("**New plan:**")
    assert all(title in previous for title in old_titles)  # the old plan, as it was
    assert all(f"**{title}**" in new for title in NEW_TOPICS)  # and the new one

    researched = [p.read_text().splitlines()[0] for p in (root / "items").glob("item_*.md")]
    assert {f"# Finding: {t}" for t in NEW_TOPICS} <= set(researched)  # the new todos ran
    supervisor = (root / "supervisor.md").read_text()
    assert "**Decision:** replan" in supervisor
    agents = "".join(p.read_text() for p in (root / "agents").glob("agent_*.md"))
    assert all(re.search(rf"\[x\] todo-\d+ \(done\): {re.escape(t)}", agents) for t in NEW_TOPICS)
    assert "(pending)" not in agents  # every old pending todo ran or was dropped
    assert view["usage"]["llm_calls"] == len(replanning_llm.requests)


def test_findings_after_the_last_review_reach_the_draft(
    fake_openai: FakeOpenAIServer, start_devhost, tmp_path: Path
) -> None:
    host = start_devhost(llm_settings(fake_openai, tmp_path))
    options = {**OPTIONS, "max_supervisor_calls": 1, "max_iterations": 4}
    view = run_research(host, QUESTION, options, timeout=RUN_TIMEOUT)
    assert view["status"] == "completed", view
    root = folder(host, view["session_id"])

    draft = (root / "draft_report.md").read_text()
    findings = [json.loads(p.read_text()) for p in (root / "items").glob("item_*.json")]
    with_findings = [f for f in findings if f["key_findings"]]
    in_draft = [f for f in with_findings if f["key_findings"][0]["text"] in draft]
    assert len(findings) >= 2 and host.engine.stats["activity:supervisor_review"] == 1
    # the one review's section is the model's own text; every other finding is quoted
    assert len(in_draft) >= len(with_findings) - 1 >= 1, draft
