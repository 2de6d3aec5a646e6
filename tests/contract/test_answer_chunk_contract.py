"""Answer chunks in both session stores (SQLite, the Cosmos DB stand-in).

The event stream relays what an activity appends while the model writes; a
client resumes after the last seq it saw. So a store must hand chunks back in
seq order from any point, refuse a seq twice (a retried activity may not write
over what a client already read) and drop them with the session.
"""

from __future__ import annotations

import pytest

from shared.adapters.stores.base import SessionStore
from shared.core.errors import ConflictError
from shared.core.session_models import Mode
from shared.core.stream_models import AnswerChunk
from tests.contract import test_session_store_contract as contract
from tests.contract.test_session_store_contract import new_session
from tests.emulators.fixtures import cosmos_standin  # noqa: F401

pytestmark = pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")

store = contract.store  # the same fixture: both real stores, built as the contract builds them


def chunks(first: int, *texts: str, part: str = "answer") -> list[AnswerChunk]:
    return [AnswerChunk(seq=first + i, part=part, text=t) for i, t in enumerate(texts)]


def test_chunks_read_back_in_order_from_any_seq(store: SessionStore) -> None:
    record = store.create(new_session(mode=Mode.search))
    assert store.last_chunk_seq(record.id) == 0
    assert store.chunks_after(record.id, 0, 100) == []

    store.append_chunks(record.id, chunks(1, "Licht ", "→ Zucker "))
    store.append_chunks(record.id, [AnswerChunk(seq=3, part="answer", kind="reset")])
    store.append_chunks(record.id, chunks(4, "光合作用 [1]", ""))

    every = store.chunks_after(record.id, 0, 100)
    assert [c.seq for c in every] == [1, 2, 3, 4, 5]
    assert [c.kind for c in every] == ["text", "text", "reset", "text", "text"]
    assert every[3].text == "光合作用 [1]"
    assert [c.seq for c in store.chunks_after(record.id, 2, 2)] == [3, 4]
    assert store.chunks_after(record.id, 5, 100) == []
    assert store.last_chunk_seq(record.id) == 5


def test_a_taken_seq_is_refused_and_the_first_text_stays(store: SessionStore) -> None:
    record = store.create(new_session(mode=Mode.chat))
    store.append_chunks(record.id, chunks(1, "first"))
    with pytest.raises(ConflictError):
        store.append_chunks(record.id, chunks(1, "second"))
    assert [c.text for c in store.chunks_after(record.id, 0, 10)] == ["first"]


def test_chunks_of_one_session_are_not_another_sessions(store: SessionStore) -> None:
    one = store.create(new_session(mode=Mode.chat, chat_id="chat-a"))
    two = store.create(new_session(mode=Mode.chat, chat_id="chat-a"))
    store.append_chunks(one.id, chunks(1, "one"))
    store.append_chunks(two.id, chunks(1, "two", part="report"))
    assert [(c.part, c.text) for c in store.chunks_after(two.id, 0, 10)] == [("report", "two")]


def test_delete_removes_the_chunks_with_the_session(store: SessionStore) -> None:
    record = store.create(new_session(mode=Mode.chat))
    store.append_chunks(record.id, chunks(1, "a", "b", "c"))
    store.delete(record.id)
    assert store.chunks_after(record.id, 0, 10) == []
    assert store.last_chunk_seq(record.id) == 0
    store.delete(record.id)  # a retried delete


def test_chunks_of_a_session_whose_document_is_gone_are_deleted_too(store: SessionStore) -> None:
    """A step still running when its session was deleted may append afterwards."""
    record = store.create(new_session(mode=Mode.chat))
    store.delete(record.id)
    store.append_chunks(record.id, chunks(1, "late"))
    store.delete(record.id)
    assert store.chunks_after(record.id, 0, 10) == []
