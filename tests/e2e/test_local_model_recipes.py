"""A deep research against imitations of local model servers, end to end through devhost.

Each imitation (``tests.fakes.local_servers``) answers the way a documented
local server does: thoughts in ``<think>`` tags (Ollama, LM Studio with a
reasoning model), thoughts in ``reasoning_content`` (vLLM with a reasoning
parser), no ``json_schema`` support (llama.cpp server, older vLLM), JSON in
fences after a preamble. The research must complete, nothing the service
stores or answers may carry the thoughts, and the imitations must cost no more
repair calls than the plain fake.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from shared.adapters.reasoning.llm_client import REPAIR_INSTRUCTION
from shared.core.config import Settings
from shared.tools.llm_endpoint.model_limits import CUT_MARK
from tests.e2e.polling import wait_terminal
from tests.fakes.local_servers import THOUGHT, NoJsonSchema, fenced, reasoning_field, think_tags
from tests.fakes.openai_server import FakeOpenAIServer, Responder, schema_aware_responder
from tests.fakes.small_corpus import write_corpus

pytestmark = pytest.mark.e2e

QUERY = "How does the Python global interpreter lock affect threads?"
OPTIONS = {
    "num_agents": 1,
    "agent_max_steps": 2,
    "max_iterations": 2,
    "search_iterations": 1,
    "run_deep_search_first": False,
    "enable_clarifying_questions": False,
}
REPAIR = REPAIR_INSTRUCTION.split("\n")[0]


def _settings(server: FakeOpenAIServer, tmp_path: Path, **more: object) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        reasoner="llm",
        openai_base_url=server.base_url,
        search_provider="local",
        local_corpus_path=write_corpus(tmp_path / "corpus"),
        **more,
    )


def _research(start_devhost, responder: Responder, tmp_path: Path) -> tuple[dict, list, Path]:
    """One deep research against ``responder``: its status, the requests, its data folder."""
    data = tmp_path / "data"
    with FakeOpenAIServer(responder) as server:
        host = start_devhost(_settings(server, tmp_path))
        with httpx.Client(base_url=host.url, timeout=30) as api:
            started = api.post("/api/research", json={"query": QUERY, "options": OPTIONS})
            assert started.status_code == 202, started.text
            session_id = started.json()["session_id"]
            view = wait_terminal(api, session_id, 180)
            report = api.get(f"/api/research/{session_id}/report").text
        host.stop()
    return {**view, "report_text": report}, list(server.requests), data


def _everything_stored(data: Path) -> str:
    """Every text the service wrote: memory files, reports, the session store."""
    parts = []
    for path in data.rglob("*"):
        if path.is_file() and path.suffix != ".pdf":
            parts.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(parts)


def _repairs(requests: list) -> int:
    return sum(1 for r in requests if REPAIR in r.prompt_text)


@pytest.mark.parametrize(
    "imitation",
    [
        lambda: think_tags(),
        lambda: think_tags(opened=False),
        lambda: reasoning_field(),
        lambda: fenced(think_tags()),
    ],
    ids=["ollama-think-tags", "template-opened-think", "vllm-reasoning-content", "fenced-json"],
)
def test_a_reasoning_model_completes_and_its_thoughts_are_stored_nowhere(
    imitation, start_devhost, tmp_path: Path
) -> None:
    view, requests, data = _research(start_devhost, imitation(), tmp_path / "imitation")
    assert view["status"] == "completed", view
    stored = _everything_stored(data) + view["report_text"] + str(view)
    assert THOUGHT not in stored
    assert "<think" not in stored and "</think" not in stored
    plain_view, plain_requests, _ = _research(
        start_devhost, schema_aware_responder, tmp_path / "plain"
    )
    assert plain_view["status"] == "completed", plain_view
    assert _repairs(requests) <= _repairs(plain_requests)


def test_a_server_without_json_schema_costs_one_refused_call(start_devhost, tmp_path) -> None:
    server_side = NoJsonSchema()
    view, requests, _ = _research(start_devhost, server_side, tmp_path)
    assert view["status"] == "completed", view
    assert server_side.refused == 1
    # the refused call is not billed: usage is what the server answered
    assert view["usage"]["llm_calls"] == len(requests) - 1


def test_an_8k_window_is_never_exceeded(start_devhost, tmp_path) -> None:
    """LLM_CONTEXT_TOKENS=8192: every request fits, measured at the fake (3 characters a token)."""
    with FakeOpenAIServer() as server:
        host = start_devhost(_settings(server, tmp_path, llm_context_tokens=8192))
        options = {**OPTIONS, "run_deep_search_first": True}
        with httpx.Client(base_url=host.url, timeout=30) as api:
            started = api.post("/api/research", json={"query": QUERY, "options": options})
            view = wait_terminal(api, started.json()["session_id"], 180)
    assert view["status"] == "completed", view
    assert len(server.requests) > 5
    for request in server.requests:
        schema = json.dumps(request.json.get("response_format") or "")
        prompt_chars = len(request.prompt_text) + len(schema)
        assert -(-prompt_chars // 3) + request.json["max_tokens"] <= 8192
        # the prompts were built to fit (evidence dropped best-last), not cut at the end
        assert CUT_MARK not in request.prompt_text


def test_no_mode_answers_with_the_models_thoughts(start_devhost, tmp_path) -> None:
    """chat, search and deep_search answers, like reports, never carry the thoughts."""
    data = tmp_path / "data"
    with FakeOpenAIServer(think_tags()) as server:
        host = start_devhost(_settings(server, tmp_path))
        with httpx.Client(base_url=host.url, timeout=30) as api:
            views = []
            for mode in ("chat", "search", "deep_search"):
                body = {"query": f"{QUERY} ({mode})", "mode": mode, "chat_id": f"c-{mode}"}
                started = api.post("/api/research", json=body)
                assert started.status_code in (200, 202), started.text
                views.append(wait_terminal(api, started.json()["session_id"], 120))
    for view in views:
        assert view["status"] == "completed", view
        assert view["result"]["answer"]["answer"]
        assert THOUGHT not in str(view) and "think>" not in str(view)
    assert THOUGHT not in _everything_stored(data)
