"""An answer streams on the session's event stream while the model writes it.

devhost with the LLM reasoner against the OpenAI-protocol fake. The fake streams
the search answer's reply word by word and holds it half-way (a gate): the
client reads ``answer_chunk`` events from ``/events`` while the session is
provably not complete (the reply it needs is still held), then the gate opens
and the run ends. What the client joined equals the stored answer; a second
client that reconnects mid-answer with the id of a chunk it saw gets exactly
the chunks after it (no gap, no duplicate); a client that connects after the
end gets the whole text, then the end.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx
import pytest

from shared.core.config import Settings
from tests.e2e.llm_gate import schema_of
from tests.e2e.polling import TERMINAL
from tests.e2e.test_sse import EventSourceClient, SseEvent
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    RecordedRequest,
    Reply,
    json_completion,
    schema_aware_responder,
)
from tests.fakes.small_corpus import write_corpus

pytestmark = pytest.mark.e2e

QUERY = "How does the global interpreter lock affect Python threads?"
ANSWER = (
    "The global interpreter lock lets one thread run Python bytecode at a time, so "
    "threads that compute do not run in parallel. Threads that wait for the network "
    "or the disk release the lock while they wait, so they still overlap. Free-threaded "
    "builds of Python 3.13 make the lock optional."
)
HELD_AT = 12  # the reply's piece the fake holds until the test lets it go
RUN_TIMEOUT = 120.0


class HeldAnswer:
    """A responder that writes ``ANSWER`` for the answer call and holds it mid-stream."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def __call__(self, request: RecordedRequest) -> Reply:
        if schema_of(request) != "ChatReply":
            return schema_aware_responder(request)
        reply = json_completion({"reasoning": "r", "answer": ANSWER, "key_points": ["GIL"]})
        reply.chunk_delay = 0.15  # longer than the client's parser waits between looks
        return reply

    def hold(self, request: RecordedRequest, piece: int) -> None:
        if schema_of(request) == "ChatReply" and piece == HELD_AT:
            assert self.release.wait(RUN_TIMEOUT), "the test never let the answer go"


def chunks_until_text(sse: EventSourceClient) -> list[SseEvent]:
    deadline = time.monotonic() + RUN_TIMEOUT
    chunks: list[SseEvent] = []
    while not any(c.data["text"] for c in chunks):
        assert time.monotonic() < deadline, "no answer text on the event stream"
        reply = sse.poll()
        assert reply.status_code == 200
        assert not any(e.event in TERMINAL for e in reply.events), "ended before any text"
        chunks += reply.chunks
    return chunks


def follow_to_end(sse: EventSourceClient) -> tuple[list[SseEvent], list[SseEvent]]:
    deadline = time.monotonic() + RUN_TIMEOUT
    states: list[SseEvent] = []
    chunks: list[SseEvent] = []
    while not states or states[-1].event not in TERMINAL:
        assert time.monotonic() < deadline, "the session did not end"
        reply = sse.poll()
        assert reply.status_code == 200, "204 before the client saw the end"
        states += reply.events
        chunks += reply.chunks
    return states, chunks


def joined(chunks: list[SseEvent]) -> str:
    text = ""
    for chunk in chunks:
        assert chunk.data["part"] == "answer"
        if chunk.data["kind"] == "reset":
            text = ""
        text += chunk.data["text"]
    return text


def test_a_search_answer_streams_before_the_session_completes(
    start_devhost, tmp_path: Path
) -> None:
    gate = HeldAnswer()
    with FakeOpenAIServer(gate) as llm:
        llm.stream_hold = gate.hold
        settings = Settings(
            data_dir=tmp_path / "data",
            openai_base_url=llm.base_url,
            openai_api_key="test",
            search_provider="local",
            local_corpus_path=write_corpus(tmp_path / "corpus"),
        )
        host = start_devhost(settings)
        try:
            with httpx.Client(base_url=host.url, timeout=60) as api:
                body = {"query": QUERY, "mode": "search", "chat_id": "streams"}
                started = api.post("/api/research", json=body)
                assert started.status_code in (200, 202), started.text
                session_id = started.json()["session_id"]
                url = f"/api/research/{session_id}/events"
                first = EventSourceClient(api, url)

                early = chunks_until_text(first)
                status = api.get(f"/api/research/{session_id}").json()["status"]
                assert status not in TERMINAL, status  # it cannot end: its answer is held
                seen_so_far = joined(early)
                assert seen_so_far and ANSWER.startswith(seen_so_far)
                assert len(seen_so_far) < len(ANSWER)
                # a second client, cut off after the first chunk with text, reconnects
                cut = next(i for i, c in enumerate(early) if c.data["text"])
                second = EventSourceClient(api, url)
                second.last_event_id = early[cut].id

                gate.release.set()
                states, rest = follow_to_end(first)
                _, resumed = follow_to_end(second)
                late_states, late_chunks = follow_to_end(EventSourceClient(api, url))

                stored = api.get(
                    f"/api/research/{session_id}/report", params={"format": "json"}
                ).json()["answer"]
        finally:
            gate.release.set()

    assert states[-1].event == "completed"
    chunks = early + rest
    assert stored == ANSWER
    assert joined(chunks) == stored
    assert chunks[-1].data["kind"] == "done"
    assert [c.data["kind"] for c in chunks].count("reset") == 1  # streamed, never replaced
    seqs = [c.data["seq"] for c in chunks]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    # the reconnect: exactly what came after the chunk it saw, nothing twice
    assert [c.data["seq"] for c in resumed] == seqs[cut + 1 :]
    assert joined(chunks[: cut + 1] + resumed) == stored
    # a client that connects after the end: the whole text, then the end
    assert joined(late_chunks) == stored
    assert [e.event for e in late_states] == ["completed"]
