"""An ``/events`` poll with nothing new reads the session record and nothing more.

The answer stream's writer stores chunks in a real SQLite session store and then
says in the session record which chunk is the newest (``last_chunk_seq``). The
poll's step (``api.reports._changes``) gets that number with the record it reads
anyway, so a client that has every chunk costs no chunk query; one that lacks
some gets exactly those. The chunk reads are counted by a proxy around the store.
A finished session's record is not trusted for it (its update may have failed): the
poll and the stream read the chunks and send the answer's tail before they end.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from api.answer_events import event_id
from api.reports import _changes, _long_poll, _stream, state_id
from api.views import session_view
from shared.adapters.stores.sqlite import SqliteSessionStore
from shared.core.config import Settings
from shared.core.session_models import Mode, SessionRecord, SessionStatus
from shared.usecases.research.answer_stream import streamed

ANSWER = (
    "A with statement calls the manager's __enter__ first. "
    "Its __exit__ runs when the block ends, even on an exception. "
    "That is how files are closed for you."
)
VIEW = {
    "status": "running",
    "phase": "writing",
    "progress": {"agents": [], "findings": 0, "source_count": 0, "supervisor_calls": 0},
}


class CountingChunks:
    """The real store, with its ``chunks_after`` calls counted."""

    def __init__(self, store: SqliteSessionStore) -> None:
        self._store = store
        self.chunk_reads = 0

    def chunks_after(self, session_id: str, after: int, limit: int):
        self.chunk_reads += 1
        return self._store.chunks_after(session_id, after, limit)

    def __getattr__(self, name: str):
        return getattr(self._store, name)


@pytest.fixture
def store(tmp_path: Path):
    sqlite = SqliteSessionStore(tmp_path / "sessions.sqlite3")
    now = datetime.now(UTC)
    sqlite.create(
        SessionRecord(
            id="s1",
            chat_id="c1",
            original_query="How does the with statement work?",
            mode=Mode.chat,
            instance_id="s1",
            created_at=now,
            updated_at=now,
        )
    )
    yield sqlite
    sqlite.close()


def _stream_answer(store: SqliteSessionStore) -> None:
    with streamed(store, "s1", "answer") as stream:
        for end in range(1, len(ANSWER) + 1, 40):
            stream.offer(ANSWER[:end], flush=True)
    stream.settle(ANSWER)


def test_the_record_names_the_newest_stored_chunk(store: SqliteSessionStore) -> None:
    assert store.get("s1").last_chunk_seq is None
    _stream_answer(store)

    newest = store.last_chunk_seq("s1")
    assert newest > 3  # several writes, each one marked
    assert store.get("s1").last_chunk_seq == newest


def test_a_poll_that_has_every_chunk_reads_no_chunks(store: SqliteSessionStore) -> None:
    _stream_answer(store)
    counting = CountingChunks(store)
    svc = SimpleNamespace(sessions=counting)
    stored = store.get("s1").last_chunk_seq

    body, state, seq, _ = asyncio.run(_changes(svc, "s1", VIEW, None, 0, stored))
    assert counting.chunk_reads == 1
    assert body.count("event: answer_chunk") == stored and seq == stored

    quiet, *_ = asyncio.run(_changes(svc, "s1", VIEW, state, seq, stored))
    assert quiet == ""
    assert counting.chunk_reads == 1  # nothing new: the record said so

    unknown, *_ = asyncio.run(_changes(svc, "s1", VIEW, state, 2, None))
    assert counting.chunk_reads == 2  # a record from before the field: ask the store
    assert unknown.count("event: answer_chunk") == stored - 2


def _svc(store: SqliteSessionStore, tmp_path: Path) -> SimpleNamespace:
    return SimpleNamespace(sessions=store, settings=Settings(data_dir=tmp_path))


def _finished_with_a_stale_hint(
    svc: SimpleNamespace, store: SqliteSessionStore, stale: int
) -> tuple[str, int]:
    """The answer streamed, the session completed, and its record naming an older chunk
    than the newest stored (the hint's update failed: it only logs); the client's view
    state and the newest chunk."""
    _stream_answer(store)
    newest = store.last_chunk_seq("s1")

    def finish(record: SessionRecord) -> None:
        record.status = SessionStatus.completed
        record.last_chunk_seq = stale

    store.update("s1", finish)
    view = session_view(svc, store.get("s1"))
    return state_id(view), newest


def test_a_poll_of_a_finished_session_gets_the_tail_a_stale_hint_hides(store, tmp_path) -> None:
    svc = _svc(store, tmp_path)
    state, newest = _finished_with_a_stale_hint(svc, store, stale=2)

    reply = asyncio.run(_long_poll(svc, None, "s1", event_id(state, 2)))

    assert reply.status_code == 200
    assert reply.get_body().decode().count("event: answer_chunk") == newest - 2


def test_the_stream_of_a_finished_session_sends_the_tail_before_it_ends(store, tmp_path) -> None:
    svc = _svc(store, tmp_path)
    state, newest = _finished_with_a_stale_hint(svc, store, stale=2)

    async def everything() -> str:
        return "".join([e async for e in _stream(svc, None, "s1", event_id(state, 2), _noop)])

    sent = asyncio.run(everything())
    assert sent.count("event: answer_chunk") == newest - 2
    assert f'"seq": {newest}' in sent.rsplit("event: answer_chunk", 1)[1]  # the done chunk


def _noop() -> None:
    return None
