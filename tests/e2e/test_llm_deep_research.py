"""End to end with the LLM reasoner: devhost + the OpenAI-protocol fake, over HTTP.

The real ``openai`` client talks to ``tests.fakes.openai_server``; nothing of
ours is patched. What a user would notice is checked: the run completes with a
report, the usage the session reports is what the endpoint answered, and the
number of calls stays within what the caps promise (``max_llm_calls``).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from orchestrators import analysis_chain, deep_research, replan
from shared.adapters.reasoning import call_budget
from shared.core.config import ResearchOptions, Settings
from tests.e2e.polling import wait_terminal
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    RecordedRequest,
    Reply,
    json_completion,
    schema_aware_responder,
)
from tests.fakes.small_corpus import write_corpus

pytestmark = pytest.mark.e2e

QUERY = "How does the Python global interpreter lock affect threads and asyncio programs?"
SMALL = {"num_agents": 2, "agent_max_steps": 3, "search_iterations": 1, "max_iterations": 4}
RUN_TIMEOUT = 180.0


def schema_of(request: RecordedRequest) -> str:
    """The structured-output schema a request asked for ("text" for plain completions)."""
    response_format = request.json.get("response_format") or {}
    return (response_format.get("json_schema") or {}).get("name", "text")


def demanding_responder(request: RecordedRequest) -> Reply:
    """The schema-aware fake, but the query looks complex and the critic always rejects.

    A complex query gets several agents (so the parallel queue runs), and a
    critic that rejects every draft makes the report phase take all its rounds:
    the most calls the caps allow for that phase.
    """
    reply = schema_aware_responder(request)
    name = schema_of(request)
    if name == "QueryAnalysis":
        analysis = json.loads(reply.body["choices"][0]["message"]["content"])
        analysis.update(complexity="complex", recommended_agents=5)
        return json_completion(analysis)
    if name == "Critique":
        return json_completion({"verdict": "REJECT", "issues": ["Section 2 lacks evidence."]})
    return reply


def start(api: httpx.Client, **body: Any) -> str:
    response = api.post("/api/research", json=body)
    assert response.status_code in (200, 202), response.text
    return response.json()["session_id"]


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(demanding_responder) as server:
        yield server


def test_deep_research_with_llm_completes_within_the_call_budget(
    fake_llm: FakeOpenAIServer, start_devhost, tmp_path: Path
) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        openai_base_url=fake_llm.base_url,
        openai_api_key="test",
        search_provider="local",
        local_corpus_path=write_corpus(tmp_path / "corpus"),
    )
    host = start_devhost(settings)
    with httpx.Client(base_url=host.url, timeout=30) as api:
        session_id = start(api, query=QUERY, options=SMALL)
        view = wait_terminal(api, session_id, RUN_TIMEOUT)
        assert view["status"] == "completed", view
        report = api.get(f"/api/research/{session_id}/report", params={"format": "json"})
        assert report.status_code == 200, report.text
        body = report.json()

    # A real report: sections with text, written by the model (the fake's phrasing).
    assert len(body["sections"]) >= 3
    assert "uses the material" in body["executive_summary"]
    # The critic rejected every round: the user is told, and confidence is lowered.
    assert any(w.startswith("Critic:") for w in body["warnings"]), body["warnings"]
    assert body["confidence_level"] != "high"

    calls = Counter(schema_of(r) for r in fake_llm.requests)
    stats = host.engine.stats
    caps = settings.caps_for(ResearchOptions(**SMALL))
    # Caps the user set are the caps that ran.
    assert 2 <= stats["activity:run_researcher"] <= caps.max_iterations
    assert stats["activity:supervisor_review"] <= caps.max_supervisor_calls
    assert calls["AgentAction"] <= stats["activity:run_researcher"] * caps.agent_max_steps
    assert calls["Critique"] == deep_research.CRITIC_ROUNDS
    assert stats["activity:generate_final_report"] == deep_research.CRITIC_ROUNDS + 1
    # Billing is honest: every answered call is in the session's usage, nothing more.
    assert view["usage"]["llm_calls"] == len(fake_llm.requests)
    assert view["usage"]["prompt_tokens"] > 0 and view["usage"]["cost"] > 0
    # And the caps bound the calls.
    assert len(fake_llm.requests) <= call_budget.max_llm_calls(caps)


def test_call_budget_follows_the_flow_constants() -> None:
    """The bound is written against the orchestrator's constants; they must agree."""
    assert call_budget.CRITIC_ROUNDS == deep_research.CRITIC_ROUNDS
    assert call_budget.REPLANS == replan.MAX_REPLANS
    assert call_budget.ANALYSES == analysis_chain.ANALYST_ROUNDS
    caps = Settings().caps_for(
        ResearchOptions(**SMALL, run_deep_search_first=False, enable_clarifying_questions=False)
    )
    # 4 planning (time range, analysis, plan, profiles) + 4 todos * (3 steps + finding)
    # + 4 reviews + 1 replan + 2 analyses + 4 writes * (3 bases * 2 + 1) + 3 critiques
    assert call_budget.max_llm_calls(caps) == 4 + 16 + 4 + 1 + 2 + 28 + 3
    assert call_budget.max_llm_calls(caps, repairs=3, activity_attempts=3) == 3 * 4 * 58


MODES = ("chat", "search", "deep_search", "deep_research")


def test_openai_settings_alone_switch_every_mode_to_the_llm(
    fake_openai: FakeOpenAIServer, start_devhost, tmp_path: Path, monkeypatch
) -> None:
    # The point is the environment contract (OPENAI_BASE_URL / OPENAI_API_KEY and
    # nothing else), so this test sets those two variables instead of fields.
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    corpus = write_corpus(tmp_path / "corpus")  # speed only: the reasoner is not chosen here
    host = start_devhost(Settings(data_dir=tmp_path / "data", local_corpus_path=corpus))
    with httpx.Client(base_url=host.url, timeout=30) as api:
        health = api.get("/api/health").json()
        assert health["reasoner"] == "llm"
        options = {
            "search_iterations": 1,
            "max_iterations": 2,
            "agent_max_steps": 2,
            "run_deep_search_first": False,
            "enable_clarifying_questions": False,
        }
        sessions = {
            mode: start(
                api,
                query=f"{QUERY} ({mode})",
                mode=mode,
                chat_id=f"chat-{mode}",
                **({"options": options} if mode == "deep_research" else {}),
            )
            for mode in MODES
        }
        views = {mode: wait_terminal(api, sid, RUN_TIMEOUT) for mode, sid in sessions.items()}

    for mode, view in views.items():
        assert view["status"] == "completed", (mode, view)
        assert view["usage"]["llm_calls"] > 0, mode
        answer = view["result"].get("answer") or {}
        written = answer.get("answer", "") or view["result"].get("report", {}).get("title", "")
        # The fake's phrasing: the offline reasoner never writes these.
        assert "uses the material" in written or written.startswith("Title 1:"), (mode, written)
        # Each mode's own question reached the endpoint.
        assert any(f"({mode})" in r.prompt_text for r in fake_openai.requests), mode
    assert sum(v["usage"]["llm_calls"] for v in views.values()) == len(fake_openai.requests)


def test_llm_deep_research_leaves_every_memory_file_in_its_documented_shape(
    fake_openai: FakeOpenAIServer, start_devhost, tmp_path: Path
) -> None:
    """The memory folder an operator opens has the same layout whichever mind wrote it.

    ``test_deep_research_memory.check_memory_files`` also checks the offline
    reasoner's own wording (topic names, "key findings" evidence), so the
    layout is checked here on its own; the run helpers are shared.
    """
    import re

    from tests.e2e.test_deep_research_memory import QUESTION, folder, run_research

    host = start_devhost(
        Settings(
            data_dir=tmp_path / "data",
            reasoner="llm",
            openai_base_url=fake_openai.base_url,
            openai_api_key="test",
            search_provider="local",
            local_corpus_path=write_corpus(tmp_path / "corpus"),
        )
    )
    # Room for every todo the supervisor adds, so each agent file ends all done.
    options = {**SMALL, "max_iterations": 12, "enable_clarifying_questions": False}
    view = run_research(host, QUESTION, options, timeout=RUN_TIMEOUT)
    assert view["status"] == "completed", view
    assert view["usage"]["llm_calls"] == len(fake_openai.requests) > 0  # the LLM wrote it
    sid, stats = view["session_id"], host.engine.stats
    root = folder(host, sid)
    stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"

    main = (root / "main.md").read_text()
    assert main.startswith("# Research Session - Main Index")
    assert f"**Query:** {QUESTION}" in main and f"**Session ID:** {sid}" in main
    assert "## Research Plan" in main and "## Key Insights" in main
    topic = r"(?m)^- \*\*.+\*\*.* \(Priority: \w+, Estimated sources: \d+\)\n  - search: \S"
    assert re.search(topic, main)

    agent_files = sorted((root / "agents").glob("agent_*.md"))
    assert agent_files
    todos_run = 0
    for path in agent_files:
        text = path.read_text()
        assert re.match(r"# Agent \d+: \S", text)
        for label in ("**Specialization:**", "**Working style:**", "**Source preferences:**"):
            assert label in text, (path.name, label)
        todos = re.findall(r"(?m)^- \[(.)\] (todo-\d+) \((\w+)\): \S", text)
        assert todos and all(status == "done" and mark == "x" for mark, _, status in todos)
        notes = text.partition("## Notes")[2]
        assert all(f"### {todo}:" in notes for _, todo, _ in todos), path.name
        todos_run += len(todos)
    assert todos_run == stats["activity:run_researcher"]

    items = sorted((root / "items").glob("item_*.md"))
    assert len(items) == stats["activity:run_researcher"]
    for path in items:
        text = path.read_text()
        assert text.startswith("# Finding: ") and "## Key findings" in text, path.name
        assert "## Sources" in text, path.name

    supervisor = (root / "supervisor.md").read_text()
    assert supervisor.startswith("# Supervisor Notes")
    reviews = re.findall(rf"(?m)^## Review (\d+) - {stamp}\n\n\*\*Decision:\*\* \w+", supervisor)
    assert reviews == [str(n) for n in range(1, stats["activity:supervisor_review"] + 1)]
    assert reviews

    draft = (root / "draft_report.md").read_text()
    assert draft.startswith("# Research Report Draft")
    assert f"**Query:** {QUESTION}" in draft
    assert re.search(rf"\*\*Started:\*\* {stamp}", draft)
    overview = draft.partition("## Overview")[2].partition("<!-- entry:")[0]
    assert overview.strip()
    sections = re.findall(rf"(?m)^## (.+) - {stamp}$", draft)
    # one section per review, and one per finding that came after the last review
    assert len(sections) == len(items)

    report = json.loads((root / "report.json").read_text())
    assert len(report["sections"]) >= 3
    markdown = (root / "report.md").read_text()
    assert report["title"] in markdown
    assert all(section["heading"] in markdown for section in report["sections"])
    assert (root / "report.pdf").read_bytes().startswith(b"%PDF-")


SHORT_QUESTION = "What does the Python yield keyword do?"
BROAD_QUESTION = (
    "How do Python generators, iterators, coroutines and asyncio fit together, how did "
    "they evolve across Python versions, and what are the trade-offs in real programs?"
)
_SECTIONS = re.compile(r"sections: (\d+)-(\d+) sections of\s+(\d+)-(\d+) words")
_SUMMARY = re.compile(r"executive_summary: (\d+)-(\d+) words")


def length_following_responder(request: RecordedRequest) -> Reply:
    """The schema-aware fake, with a model's two habits that matter here: it judges a
    one-line question simple and a many-part one complex, and it writes the report at
    the length and in the number of sections the prompt asks for."""
    name = schema_of(request)
    if name == "QueryAnalysis":
        broad = BROAD_QUESTION[:60] in request.prompt_text
        return json_completion(
            {
                "key_concepts": ["generators", "iterators"],
                "query_type": "open" if broad else "fact",
                "complexity": "complex" if broad else "simple",
                "recommended_agents": 2 if broad else 1,
                "recommended_steps": 3,
            }
        )
    if name != "ReportDraft":
        return schema_aware_responder(request)
    text = " ".join(request.prompt_text.split())
    sections, _, low, high = map(int, _SECTIONS.search(text).groups())
    section_words = (low + high) // 2
    summary_words = sum(map(int, _SUMMARY.search(text).groups())) // 2
    cited = re.findall(r'<source n="(\d+)"', request.prompt_text) or ["1"]

    def prose(words: int, salt: str) -> str:
        sentence = [
            f"Claim {salt}.{i} about generators holds [{cited[i % len(cited)]}]."
            for i in range(words // 6 + 1)
        ]
        return " ".join(sentence)

    return json_completion(
        {
            "title": "Generators",
            "executive_summary": prose(summary_words, "s"),
            "sections": [
                {"heading": f"Part {k}", "content": prose(section_words, str(k))}
                for k in range(sections)
            ],
            "conclusion": prose(summary_words, "c"),
            "confidence_level": "medium",
            "follow_up_questions": ["What next?"],
        }
    )


def report_words(api: httpx.Client, session_id: str) -> tuple[int, int]:
    body = api.get(f"/api/research/{session_id}/report", params={"format": "json"}).json()
    texts = [
        body["executive_summary"],
        body["conclusion"],
        *(s["content"] for s in body["sections"]),
    ]
    return sum(len(t.split()) for t in texts), len(body["sections"])


def test_a_short_question_gets_a_short_report_and_a_broad_one_a_long_report(
    start_devhost, tmp_path: Path
) -> None:
    options = {**SMALL, "run_deep_search_first": False, "enable_clarifying_questions": False}
    with FakeOpenAIServer(length_following_responder) as llm:
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
            runs = {}
            for label, question in (("short", SHORT_QUESTION), ("broad", BROAD_QUESTION)):
                session_id = start(api, query=question, options=options, chat_id=label)
                view = wait_terminal(api, session_id, RUN_TIMEOUT)
                assert view["status"] == "completed", view
                runs[label] = report_words(api, session_id)
        caps = [r.json["max_tokens"] for r in llm.requests if schema_of(r) == "ReportDraft"]

    (short_words, short_sections), (long_words, long_sections) = runs["short"], runs["broad"]
    assert short_words <= 1500 and short_sections <= 4, runs
    assert long_words >= 3000 and long_sections >= 4, runs
    # the writer's output cap follows the length asked for: small for the short report
    assert len(caps) == 2 and caps[0] < caps[1], caps
