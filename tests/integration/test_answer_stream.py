"""Answers stream while they are written: the LLM client and the offline engine, through
the answer stream's writer into a real SQLite session store.

The OpenAI-protocol fake streams its reply word by word (``"stream": true``) with a
delay per piece, and holds one piece until the store shows text: so the text is
provably in the store while the model is still writing. What a client joins from
the chunks (the text after the last reset) must equal what was stored.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from shared.adapters.reasoning.llm import LLMReasoner
from shared.adapters.stores.sqlite import SqliteSessionStore
from shared.core.config import Settings
from shared.core.stream_models import AnswerChunk
from shared.tools.llm_endpoint.usage import metered
from shared.usecases.research.answer_stream import streamed
from tests.fakes import openai_server
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    RecordedRequest,
    completion,
    error,
    json_completion,
)

fake_openai = openai_server.fake_openai  # the fixture, registered in this module

ANSWER = (
    "The global interpreter lock lets one thread run Python bytecode at a time. "
    "Threads still help with waiting on the network or the disk, because the lock "
    "is released while they wait. For work on the processor, processes scale better."
)


def joined(chunks: list[AnswerChunk]) -> dict[str, str]:
    """What a client holds per part: the text after each part's last reset."""
    texts: dict[str, str] = {}
    for chunk in chunks:
        if chunk.kind == "reset":
            texts[chunk.part] = ""
        elif chunk.kind == "text":
            texts[chunk.part] = texts.get(chunk.part, "") + chunk.text
    return texts


def reply(answer: str, **extra) -> openai_server.Reply:
    body = {"reasoning": "from general knowledge", "answer": answer, "key_points": ["one"]}
    return json_completion({**body, **extra})


@pytest.fixture
def store(tmp_path: Path):
    sqlite = SqliteSessionStore(tmp_path / "sessions.sqlite3")
    yield sqlite
    sqlite.close()


def _reasoner(server: FakeOpenAIServer, tmp_path: Path) -> LLMReasoner:
    settings = Settings(
        openai_base_url=server.base_url, openai_api_key="test", data_dir=tmp_path, llm_max_retries=0
    )
    return LLMReasoner(settings)


def test_a_chat_answer_is_in_the_store_while_the_model_writes_it(
    fake_openai: FakeOpenAIServer, store: SqliteSessionStore, tmp_path: Path
) -> None:
    streamed_reply = reply(ANSWER)
    streamed_reply.chunk_delay = 0.15  # longer than the parser's pause between looks
    fake_openai.enqueue(streamed_reply)
    seen_mid_reply: list[str] = []
    pieces = len(streamed_reply.body["choices"][0]["message"]["content"].split())

    def hold(request: RecordedRequest, i: int) -> None:
        if i == pieces - 3:  # the answer is mostly written, the reply not finished
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                text = joined(store.chunks_after("s-1", 0, 100)).get("answer", "")
                if text:
                    seen_mid_reply.append(text)
                    return
                threading.Event().wait(0.02)

    fake_openai.stream_hold = hold
    with metered() as meter, streamed(store, "s-1", "answer") as stream:
        answer = _reasoner(fake_openai, tmp_path).answer("What does the GIL do?", [], "en")
    stream.settle(answer.answer)

    assert answer.answer == ANSWER
    [request] = fake_openai.requests
    assert request.json["stream"] is True
    assert request.json["stream_options"] == {"include_usage": True}
    assert meter.usage.llm_calls == 1 and meter.usage.completion_tokens > 0  # still billed
    assert seen_mid_reply and ANSWER.startswith(seen_mid_reply[0])
    assert len(seen_mid_reply[0]) < len(ANSWER)
    chunks = store.chunks_after("s-1", 0, 100)
    assert [c.seq for c in chunks] == list(range(1, len(chunks) + 1))
    assert chunks[0].kind == "reset" and chunks[-1].kind == "done"
    assert [c.kind for c in chunks[1:-1]] == ["text"] * (len(chunks) - 2)  # no restart
    assert len(chunks) >= 4  # several writes while the model wrote, not one at the end
    assert joined(chunks) == {"answer": ANSWER}


def test_a_repaired_reply_restarts_the_text_and_the_client_ends_with_the_stored_one(
    fake_openai: FakeOpenAIServer, store: SqliteSessionStore, tmp_path: Path
) -> None:
    invalid = json_completion({"reasoning": "r", "answer": "A first try that fails"})
    fake_openai.enqueue(invalid, reply(ANSWER))  # no key_points: the first is repaired

    with streamed(store, "s-2", "answer") as stream:
        answer = _reasoner(fake_openai, tmp_path).answer("What does the GIL do?", [], "en")
    stream.settle(answer.answer)

    chunks = store.chunks_after("s-2", 0, 100)
    first_try = "".join(c.text for c in chunks if c.kind == "text")
    assert first_try.startswith("A first try that fails")  # it was streamed, then dropped
    assert [c.kind for c in chunks].count("reset") == 2
    assert joined(chunks) == {"answer": ANSWER}


def test_a_stored_text_that_differs_from_the_streamed_one_replaces_it(
    fake_openai: FakeOpenAIServer, store: SqliteSessionStore, tmp_path: Path
) -> None:
    """Citations renumbered after the reply (a search answer): the client gets the stored."""
    fake_openai.enqueue(reply("Threads wait [2] and compute [1]."))
    with streamed(store, "s-3", "answer") as stream:
        answer = _reasoner(fake_openai, tmp_path).answer("What does the GIL do?", [], "en")
    stream.settle("Threads wait [1] and compute [2].")

    chunks = store.chunks_after("s-3", 0, 100)
    assert answer.answer == "Threads wait [2] and compute [1]."
    assert [c.kind for c in chunks][-3:] == ["reset", "text", "done"]
    assert joined(chunks) == {"answer": "Threads wait [1] and compute [2]."}


def test_other_calls_are_not_streamed(fake_openai: FakeOpenAIServer, store, tmp_path) -> None:
    with streamed(store, "s-4", "answer"):
        _reasoner(fake_openai, tmp_path).search_queries("GIL threads", 2, "en")
    assert "stream" not in fake_openai.requests[0].json
    assert store.chunks_after("s-4", 0, 10) == []


def test_the_offline_engine_streams_its_answer_sentence_by_sentence(store, tmp_path) -> None:
    from shared.adapters.reasoning.offline import OfflineReasoner
    from tests.contract.conftest import shared_corpus

    with streamed(store, "s-5", "answer") as stream:
        answer = OfflineReasoner(shared_corpus()).answer(
            "How does the with statement work?", [], "en"
        )
    stream.settle(answer.answer)

    chunks = store.chunks_after("s-5", 0, 100)
    texts = [c.text for c in chunks if c.kind == "text"]
    assert len(texts) >= 3, texts  # one write per sentence, not the whole at once
    assert all(t.strip() for t in texts)
    assert joined(chunks) == {"answer": answer.answer}


def test_a_report_streams_section_by_section_across_continuations(
    fake_openai: FakeOpenAIServer, store: SqliteSessionStore, tmp_path: Path
) -> None:
    """A report cut at the output cap is continued; the stream goes on where it stopped."""
    from shared.core.report_models import ReportMaterial
    from shared.core.research_models import ResearchContext
    from shared.core.source_models import Source

    whole = json.dumps(
        {
            "title": "Threads and the GIL",
            "executive_summary": "One thread runs bytecode at a time [1].",
            "sections": [
                {"heading": f"Part {i}", "content": f"What part {i} says about threads [1]."}
                for i in range(4)
            ],
            "conclusion": "Use processes for computing.",
            "confidence_level": "medium",
            "follow_up_questions": ["And asyncio?"],
        }
    )
    cut = len(whole) // 2
    first, second = completion(whole[:cut], finish_reason="length"), completion(whole[cut:])
    first.chunk_delay = second.chunk_delay = 0.05
    fake_openai.enqueue(first, second)
    material = ReportMaterial(
        context=ResearchContext(session_id="s-6", query="GIL and threads"),
        sources=[Source(n=1, url="https://a.example/gil")],
    )

    with streamed(store, "s-6", "report"):
        report = _reasoner(fake_openai, tmp_path).write_report(material)

    assert [r.json.get("stream") for r in fake_openai.requests] == [True, True]
    chunks = store.chunks_after("s-6", 0, 100)
    assert [c.kind for c in chunks].count("reset") == 1  # the continuation appended
    texts = [c.text for c in chunks if c.kind == "text"]
    assert len(texts) >= 3, texts  # written as the sections came, not once at the end
    assert all(t.endswith("\n") for t in texts), texts  # whole sections, never half of one
    draft = joined(chunks)["report"]
    assert draft.startswith("# Threads and the GIL\n\nOne thread runs bytecode")
    for section in report.sections:
        assert f"## {section.heading}\n\n" in draft
    assert draft.endswith("Use processes for computing.\n")


def test_an_endpoint_that_refuses_streaming_is_asked_again_unstreamed(
    fake_openai: FakeOpenAIServer, store: SqliteSessionStore, tmp_path: Path
) -> None:
    """A local server without ``stream_options`` (say): the answer still comes, once."""
    fake_openai.enqueue(error(400), reply(ANSWER), reply("Second answer."))
    reasoner = _reasoner(fake_openai, tmp_path)

    with streamed(store, "s-7", "answer") as stream:
        answer = reasoner.answer("What does the GIL do?", [], "en")
    stream.settle(answer.answer)
    with streamed(store, "s-8", "answer"):
        reasoner.answer("And asyncio?", [], "en")

    assert answer.answer == ANSWER
    assert [r.json.get("stream") for r in fake_openai.requests] == [True, None, None]
    assert joined(store.chunks_after("s-7", 0, 100)) == {"answer": ANSWER}


def test_streaming_can_be_switched_off(fake_openai: FakeOpenAIServer, store, tmp_path) -> None:
    fake_openai.enqueue(reply(ANSWER))
    settings = Settings(
        openai_base_url=fake_openai.base_url,
        openai_api_key="test",
        data_dir=tmp_path,
        llm_stream_answers=False,
    )
    with streamed(store, "s-9", "answer"):
        LLMReasoner(settings).answer("What does the GIL do?", [], "en")
    assert "stream" not in fake_openai.requests[0].json
