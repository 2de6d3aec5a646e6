"""The LLM client against imitations of local servers (Ollama, vLLM, llama.cpp, LM Studio).

The real ``openai`` client talks to ``tests.fakes.openai_server`` wrapped by
``tests.fakes.local_servers``; what a user would notice is checked: the
thoughts never reach a reply, they are still paid for, and ``auto`` finds the
structured-output mode a server supports with one refused call.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shared.adapters.reasoning.llm import LLMReasoner
from shared.adapters.reasoning.llm_client import REPAIR_INSTRUCTION, LLMClient
from shared.core.config import Settings
from shared.core.errors import PermanentError
from shared.core.research_models import QueryAnalysis, ResearchContext
from shared.tools.llm_endpoint.usage import metered
from tests.fakes.local_servers import THOUGHT, NoJsonSchema, fenced, reasoning_field, think_tags
from tests.fakes.openai_server import FakeOpenAIServer, Responder

REPAIR = REPAIR_INSTRUCTION.split("\n")[0]


def _client(server: FakeOpenAIServer, tmp_path: Path, **overrides) -> LLMClient:
    values = {
        "openai_base_url": server.base_url,
        "openai_api_key": "test",
        "data_dir": tmp_path,
        "llm_max_retries": 0,
        **overrides,
    }
    return LLMClient(Settings(**values), initial_backoff=0.01)


def _analysis(client: LLMClient, model: str = "fast") -> QueryAnalysis:
    return client.complete_structured(
        QueryAnalysis,
        [{"role": "user", "content": "<query>\nHow do heat pumps work?\n</query>"}],
        model=model,
        temperature=0,
        max_tokens=500,
    )


def _repairs(server: FakeOpenAIServer) -> int:
    return sum(1 for r in server.requests if REPAIR in r.prompt_text)


@pytest.mark.parametrize(
    "imitation",
    [think_tags(), think_tags(opened=False), reasoning_field()],
    ids=["think-tags", "template-opened-think", "reasoning-content"],
)
def test_a_reasoning_models_thoughts_never_reach_a_reply_and_are_still_counted(
    imitation: Responder, tmp_path: Path
) -> None:
    with FakeOpenAIServer(imitation) as server:
        client = _client(server, tmp_path)
        with metered() as meter:
            analysis = _analysis(client)
            text = client.complete_text(
                [{"role": "user", "content": "Say what a heat pump is."}],
                model="fast",
                temperature=0,
                max_tokens=200,
            )
    assert analysis.recommended_agents >= 1
    assert _repairs(server) == 0  # the thoughts cost no repair call
    assert THOUGHT not in text and "think>" not in text and text
    # every generated token is billed, the thoughts' included (the fake counts chars // 4)
    assert meter.usage.completion_tokens >= 2 * (len(THOUGHT) // 4)
    assert meter.usage.llm_calls == 2


def test_auto_settles_on_json_object_after_one_refusal_and_remembers_it(tmp_path: Path) -> None:
    server_side = NoJsonSchema()
    with FakeOpenAIServer(server_side) as server:
        client = _client(server, tmp_path)
        first = _analysis(client)
        second = _analysis(client)
        other_model = _analysis(client, model="strategic")
        # a new client in the same process (another activity) remembers it too
        again = _analysis(_client(server, tmp_path))
    assert all(a.recommended_agents >= 1 for a in (first, second, other_model, again))
    assert server_side.refused == 1
    kinds = [(r.json.get("response_format") or {}).get("type") for r in server.requests]
    assert kinds == ["json_schema", "json_object", "json_object", "json_object", "json_object"]
    assert "<json_schema>" in server.requests[1].prompt_text


def test_auto_falls_back_to_the_prompt_when_json_object_is_refused_too(tmp_path: Path) -> None:
    server_side = NoJsonSchema(json_object=False)
    with FakeOpenAIServer(server_side) as server:
        client = _client(server, tmp_path)
        assert _analysis(client).recommended_agents >= 1
        assert _analysis(client).recommended_agents >= 1
    assert server_side.refused == 2
    assert "response_format" not in server.requests[-1].json


def test_a_fixed_mode_the_server_refuses_says_which_setting_to_change(tmp_path: Path) -> None:
    with FakeOpenAIServer(NoJsonSchema()) as server:
        client = _client(server, tmp_path, llm_structured_output="json_schema")
        with pytest.raises(PermanentError, match="LLM_STRUCTURED_OUTPUT=json_schema"):
            _analysis(client)
    assert len(server.requests) == 1


def test_a_400_about_something_else_is_not_taken_for_a_refusal(tmp_path: Path) -> None:
    from tests.fakes.openai_server import error

    with FakeOpenAIServer() as server:
        server.enqueue(error(400))
        with pytest.raises(PermanentError, match="answered 400"):
            _analysis(_client(server, tmp_path))
        assert _analysis(_client(server, tmp_path)).recommended_agents >= 1
    assert server.requests[-1].json["response_format"]["type"] == "json_schema"


def test_json_in_a_fence_after_a_preamble_is_accepted_without_repair(tmp_path: Path) -> None:
    with FakeOpenAIServer(fenced(think_tags())) as server:
        reasoner = LLMReasoner(
            Settings(openai_base_url=server.base_url, openai_api_key="t", data_dir=tmp_path)
        )
        analysis = reasoner.analyze(ResearchContext(session_id="s", query="Why is the sky blue?"))
    assert analysis.recommended_agents >= 1
    assert _repairs(server) == 0


def test_each_role_has_its_own_timeout(tmp_path: Path) -> None:
    """A slow local generation fails only the role whose timeout it exceeds."""
    from shared.core.errors import TransientError
    from tests.fakes.openai_server import schema_aware_responder

    def slow(request):
        reply = schema_aware_responder(request)
        reply.delay = 0.5
        return reply

    with FakeOpenAIServer(slow) as server:
        client = _client(
            server,
            tmp_path,
            fast_model="small",
            long_context_model="big",
            llm_timeout_seconds=30,
            llm_timeout_seconds_fast=0.05,
        )
        with pytest.raises(TransientError, match="too slow"):
            _analysis(client, model="small")
        assert _analysis(client, model="big").recommended_agents >= 1


def test_a_small_window_is_never_exceeded(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        client = _client(server, tmp_path, llm_context_tokens=4096)
        long_question = "<query>\nHow do heat pumps work?\n</query>\n" + "evidence " * 6000
        client.complete_structured(
            QueryAnalysis,
            [{"role": "user", "content": long_question}],
            model="fast",
            temperature=0,
            max_tokens=3000,
        )
    sent = server.requests[0].json
    prompt_chars = len(server.requests[0].prompt_text) + len(json.dumps(sent["response_format"]))
    assert prompt_chars // 3 + sent["max_tokens"] <= 4096
