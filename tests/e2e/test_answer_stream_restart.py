"""A host killed mid-answer: the re-run answer replaces the half-written one, no mixing.

``python -m devhost serve`` (LLM reasoner, against the OpenAI-protocol fake in this
test process) is SIGKILLed while the search answer's reply is held half-way, with
part of it already on the event stream. The host restarts on the same data, the
synthesis activity runs again and the model writes a different answer. A client
that resumes with the id of the last chunk it saw gets a ``reset`` and the new
text: what it holds in the end is the stored answer, nothing of the first try.
"""

from __future__ import annotations

import threading
from pathlib import Path

import httpx
import pytest

from tests.e2e.llm_gate import schema_of
from tests.e2e.serve_process import ServeProcess, free_port
from tests.e2e.test_answer_streaming import (
    ANSWER,
    HELD_AT,
    chunks_until_text,
    follow_to_end,
    joined,
)
from tests.e2e.test_sse import EventSourceClient
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    RecordedRequest,
    Reply,
    json_completion,
    schema_aware_responder,
)
from tests.fakes.small_corpus import write_corpus

pytestmark = pytest.mark.e2e

SECOND_ANSWER = "Asked again after the restart: one thread runs Python bytecode at a time."


class FirstTryHeld:
    """The first answer call is held mid-stream (and dies with its host); later ones finish."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.answers = 0
        self._lock = threading.Lock()

    def __call__(self, request: RecordedRequest) -> Reply:
        if schema_of(request) != "ChatReply":
            return schema_aware_responder(request)
        with self._lock:
            self.answers += 1
            first = self.answers == 1
        text = ANSWER if first else SECOND_ANSWER
        reply = json_completion({"reasoning": "r", "answer": text, "key_points": ["GIL"]})
        reply.chunk_delay = 0.15 if first else 0.0
        return reply

    def hold(self, request: RecordedRequest, piece: int) -> None:
        if schema_of(request) == "ChatReply" and piece == HELD_AT and self.answers == 1:
            self.release.wait(120)


def test_a_host_killed_mid_answer_streams_the_rerun_answer_cleanly(tmp_path: Path) -> None:
    gate = FirstTryHeld()
    port = free_port()
    corpus = write_corpus(tmp_path / "corpus")
    hosts: list[ServeProcess] = []

    def serve() -> ServeProcess:
        host = ServeProcess(
            port,
            tmp_path / "devhost.log",
            data_dir=str(tmp_path / "data"),
            reasoner="llm",
            openai_base_url=llm.base_url,
            openai_api_key="test",
            search_provider="local",
            local_corpus_path=str(corpus),
        )
        hosts.append(host)
        return host

    with FakeOpenAIServer(gate) as llm, httpx.Client(timeout=60) as http:
        llm.stream_hold = gate.hold
        try:
            first_host = serve()
            first_host.wait_ready(http)
            api = httpx.Client(base_url=first_host.url, timeout=60)
            body = {"query": "How does the GIL affect threads?", "mode": "search"}
            session_id = api.post("/api/research", json=body).json()["session_id"]
            sse = EventSourceClient(api, f"/api/research/{session_id}/events")
            before = chunks_until_text(sse)

            first_host.kill()  # the answer is half-written, its reply still held
            gate.release.set()
            serve().wait_ready(http)
            states, after = follow_to_end(sse)  # the same client, resuming by its last id
            stored = api.get(
                f"/api/research/{session_id}/report", params={"format": "json"}
            ).json()["answer"]
            api.close()
        finally:
            gate.release.set()
            for host in hosts:
                host.kill()

    assert states[-1].event == "completed"
    assert gate.answers == 2, "the synthesis ran again after the restart"
    half = "".join(c.data["text"] for c in before)
    assert half and ANSWER.startswith(half) and len(half) < len(ANSWER)
    kinds = [c.data["kind"] for c in after]
    assert "reset" in kinds and kinds[-1] == "done", kinds  # the re-run starts the part again
    assert stored == SECOND_ANSWER == joined(before + after)
    seqs = [c.data["seq"] for c in before + after]
    assert seqs == sorted(set(seqs)), "a chunk was repeated or reordered"
