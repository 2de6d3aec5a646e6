"""Session budgets end to end (issue 4 item 7): MAX_TOKENS / MAX_COST per session.

"When reached, no new work is scheduled and the run goes straight to the
report; it does not fail." Checked against the OpenAI-protocol fake with the
real ``openai`` client, through devhost and the public API: a run whose budget
is spent by the deep search and the planning completes with a report, runs
fewer researcher activities than the same run without a budget, and says why.

The budget is measured, not guessed: the unbudgeted run's calls are recorded
(tokens and estimated cost per call), and the budget is set just above what
the calls before the first researcher step used.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from shared.core.config import Settings
from shared.tools.llm_endpoint.pricing import cost_of, price_for
from tests.e2e.polling import TERMINAL, wait_for
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
OPTIONS = {
    "num_agents": 2,
    "agent_max_steps": 2,
    "search_iterations": 1,
    "max_iterations": 8,
    "run_deep_search_first": True,
    "enable_clarifying_questions": False,
}
MODEL = "gpt-4o-mini"  # priced in shared/tools/llm_endpoint/pricing.py
RESEARCHER = "activity:run_researcher"


@dataclass
class Call:
    schema: str
    tokens: int
    cost: float


class MeteredLLM:
    """The schema-aware fake, plus a meter of what each answered call cost."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.server = FakeOpenAIServer(self._respond)

    def _respond(self, request: RecordedRequest) -> Reply:
        schema = ((request.json.get("response_format") or {}).get("json_schema") or {}).get(
            "name", "text"
        )
        reply = schema_aware_responder(request)
        if schema == "QueryAnalysis":  # two agents, so two researchers run side by side
            analysis = json.loads(reply.body["choices"][0]["message"]["content"])
            analysis.update(complexity="complex", recommended_agents=OPTIONS["num_agents"])
            reply = json_completion(analysis)
        used = reply.body["usage"]
        prompt = used["prompt_tokens"]
        prompt = len(request.prompt_text) // 4 if prompt is None else prompt
        completion = used["completion_tokens"]
        model = request.json.get("model", "")
        self.calls.append(Call(schema, prompt + completion, cost_of(model, prompt, completion)))
        return reply

    def before_research(self, since: int) -> tuple[int, float]:
        """Tokens and cost of the calls from ``since`` up to the first researcher step."""
        tokens, cost = 0, 0.0
        for call in self.calls[since:]:
            if call.schema == "AgentAction":
                return tokens, cost
            tokens, cost = tokens + call.tokens, cost + call.cost
        raise AssertionError("no researcher step reached the model")


@pytest.fixture
def llm() -> Iterator[MeteredLLM]:
    metered = MeteredLLM()
    with metered.server:
        yield metered


@pytest.fixture
def host(start_devhost, data_dir: Path, tmp_path: Path, llm: MeteredLLM):
    return start_devhost(
        Settings(
            data_dir=data_dir,
            reasoner="llm",
            openai_base_url=llm.server.base_url,
            openai_api_key="test",
            fast_model=MODEL,
            strategic_model=MODEL,
            long_context_model=MODEL,
            search_provider="local",
            local_corpus_path=write_corpus(tmp_path / "corpus"),
        )
    )


def research(api: httpx.Client, host, **budget: float) -> dict:
    """One deep research to its end: the view, its report and its researcher runs."""
    before = host.engine.stats[RESEARCHER]
    body = {"query": QUERY, "mode": "deep_research", "options": {**OPTIONS, **budget}}
    started = api.post("/api/research", json=body)
    assert started.status_code in (200, 202), started.text
    view = wait_for(api, started.json()["session_id"], TERMINAL, timeout=150)
    report = api.get(f"/api/research/{view['session_id']}/report", params={"format": "json"})
    return {
        "view": view,
        "report": report.json() if report.status_code == 200 else None,
        "researchers": host.engine.stats[RESEARCHER] - before,
    }


def assert_stopped_by_budget(budgeted: dict, unbudgeted: dict) -> None:
    view = budgeted["view"]
    assert view["status"] == "completed", view.get("error")
    assert budgeted["report"] is not None and len(budgeted["report"]["sections"]) >= 3
    # Only the researchers already in flight when the budget ran out finished.
    assert budgeted["researchers"] <= OPTIONS["num_agents"]
    assert budgeted["researchers"] < unbudgeted["researchers"]
    told = " ".join(
        [
            view["progress"].get("message") or "",
            *budgeted["report"].get("warnings", []),
        ]
    )
    assert "budget" in told.lower(), told


def test_token_and_cost_budgets_cut_research_short_but_still_report(host, llm: MeteredLLM) -> None:
    assert price_for(MODEL) is not None
    with httpx.Client(base_url=host.url, timeout=30) as api:
        first_call = len(llm.calls)
        unbudgeted = research(api, host)
        assert unbudgeted["view"]["status"] == "completed", unbudgeted["view"].get("error")
        tokens, cost = llm.before_research(first_call)
        # The meter agrees with what the session reports to its user.
        used = unbudgeted["view"]["usage"]
        assert used["prompt_tokens"] + used["completion_tokens"] == sum(
            c.tokens for c in llm.calls[first_call:]
        )

        # Just above what the deep search and the planning need.
        by_tokens = research(api, host, max_tokens=max(1000, tokens + 50))
        by_cost = research(api, host, max_cost_usd=cost * 1.01)

    print(
        f"\nbefore research: {tokens} tokens, ${cost:.6f}; researcher runs: "
        f"unbudgeted {unbudgeted['researchers']}, token budget {by_tokens['researchers']}, "
        f"cost budget {by_cost['researchers']}"
    )
    assert_stopped_by_budget(by_tokens, unbudgeted)
    assert_stopped_by_budget(by_cost, unbudgeted)
    assert by_tokens["view"]["usage"]["prompt_tokens"] < used["prompt_tokens"]
    assert by_cost["view"]["usage"]["cost"] < used["cost"]


def test_budget_spent_before_research_schedules_no_researcher(host) -> None:
    with httpx.Client(base_url=host.url, timeout=30) as api:
        spent = research(api, host, max_tokens=1000)  # the deep search alone uses more

    print(f"\nresearcher runs with the budget spent by the deep search: {spent['researchers']}")
    assert spent["view"]["status"] == "completed", spent["view"].get("error")
    assert spent["report"] is not None
    assert "budget" in (spent["view"]["progress"].get("message") or "")
    assert spent["researchers"] == 0


@pytest.mark.parametrize("max_tokens", [20_000, 40_000, 80_000])
def test_a_token_budget_holds_and_the_report_names_the_cut(host, llm, max_tokens: int) -> None:
    """Every phase sizes its work to what is left: spent <= budget x 1.1 (issue 23 item 10).

    Default caps (4 agents, 5 steps, 6 reviews, deep search first); an unbudgeted
    run against this fake spends about 90k tokens, so every budget here cuts it.
    """
    options = {"enable_clarifying_questions": False, "max_tokens": max_tokens}
    with httpx.Client(base_url=host.url, timeout=30) as api:
        first_call = len(llm.calls)
        body = {"query": QUERY, "mode": "deep_research", "options": options}
        started = api.post("/api/research", json=body)
        assert started.status_code == 202, started.text
        view = wait_for(api, started.json()["session_id"], TERMINAL, timeout=150)
        report = api.get(f"/api/research/{view['session_id']}/report", params={"format": "json"})
    spent = sum(c.tokens for c in llm.calls[first_call:])
    used = view["usage"]
    print(f"\nbudget {max_tokens}: spent {spent} tokens in {len(llm.calls) - first_call} calls")
    assert used["prompt_tokens"] + used["completion_tokens"] == spent  # the meter is honest
    assert spent <= max_tokens * 1.1
    assert view["status"] == "completed", view.get("error")
    assert report.status_code == 200 and len(report.json()["sections"]) >= 3
    cut = [w for w in view["warnings"] if "budget" in w["message"]]
    assert cut, view["warnings"]
    # A cut before the report is named in it; the critic's review comes after the report
    # is written, so skipping it is told by the status alone.
    before_report = [w for w in cut if w["phase"] != "reviewing"]
    limits = report.json()["limitations"]
    assert not before_report or any("budget" in line for line in limits), (cut, limits)
