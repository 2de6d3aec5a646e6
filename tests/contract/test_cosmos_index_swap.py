"""Replacing a document on Cosmos DB is atomic for readers, over HTTP against the gateway
fake's documented transactional-batch contract (tests/fakes/cosmos_fulltext.py; the
Cosmos stand-in has no transactional batch)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from shared.adapters.documents.cosmos_index import CosmosIndex
from shared.core.config import Settings
from tests.contract.test_index_contract import KEY, chunks
from tests.fakes.cosmos_fulltext import FullTextCosmos

WAIT = 30  # seconds: a deadline for the writer, never a pause


@pytest.fixture
def cosmos() -> Iterator[tuple[CosmosIndex, FullTextCosmos]]:
    with FullTextCosmos() as fake:
        settings = Settings(cosmos_endpoint=fake.endpoint, cosmos_key=KEY, cosmos_verify_tls=False)
        yield CosmosIndex(settings), fake


def _texts(word: str, n: int) -> list[str]:
    return [f"Pump {word} note number {i}." for i in range(n)]


def test_a_small_document_is_swapped_in_one_transactional_batch(cosmos) -> None:
    index, fake = cosmos
    index.replace_document("c1", "d1", chunks("c1", "d1", ["one", "two", "three"]))
    fake.writes.clear()
    assert index.replace_document("c1", "d1", chunks("c1", "d1", ["uno", "dos"])) == 2
    swap, *cleanup = fake.writes
    assert [op["operationType"] for op in swap] == ["Upsert"] * 3  # two chunks and the head
    assert [op["operationType"] for ops in cleanup for op in ops] == ["Delete"] * 3
    assert [c.text for c in index.document_chunks("c1", "d1")] == ["uno", "dos"]


def test_a_reader_during_a_long_replace_sees_the_old_chunks_or_the_new_never_a_mix(
    cosmos,
) -> None:
    index, fake = cosmos
    index.replace_document("c1", "d1", chunks("c1", "d1", _texts("alpha", 150)))
    new = chunks("c1", "d1", _texts("beta", 150))
    fake.writes.clear()
    done = threading.Event()

    def replace() -> None:
        try:
            index.replace_document("c1", "d1", new)
        finally:
            done.set()
            fake.written.release()

    fake.pause_writes = True
    writer = threading.Thread(target=replace)
    writer.start()
    seen: list[str] = []
    while True:
        assert fake.written.acquire(timeout=WAIT), "the replace made no progress"
        words = {c.text.split()[1] for c in index.document_chunks("c1", "d1")}
        assert len(words) == 1, f"a mix of generations: {words}"
        assert index.count("c1", "d1") == 150
        hits = {h.chunk.text.split()[1] for h in index.search(["c1"], "pump alpha beta", 40)}
        assert hits == words
        seen.append(words.pop())
        if done.is_set():
            break
        fake.resume()
    writer.join(WAIT)
    # 150 chunks and a head are two batches, the 150 old items two more; the new
    # generation showed from the batch that wrote the head on
    assert len(fake.writes) == 4 and all(len(ops) <= 100 for ops in fake.writes)
    assert seen == ["alpha", "beta", "beta", "beta", "beta"]


def test_a_document_being_written_for_the_first_time_shows_only_once_complete(cosmos) -> None:
    index, fake = cosmos
    fake.pause_writes = True
    writer = threading.Thread(
        target=index.replace_document, args=("c1", "d1", chunks("c1", "d1", _texts("x", 120)))
    )
    writer.start()
    assert fake.written.acquire(timeout=WAIT)
    assert index.count("c1") == 0 and index.search(["c1"], "pump", 10) == []
    fake.pause_writes = False
    fake.resume()
    writer.join(WAIT)
    assert index.count("c1") == 120


def test_chunks_written_before_generations_stay_visible_until_replaced(cosmos) -> None:
    index, fake = cosmos
    [legacy] = chunks("c1", "d1", ["An old pump note."])
    fake.items[("c1", legacy.id)] = legacy.model_dump(mode="json")
    assert [c.id for c in index.document_chunks("c1", "d1")] == ["d1-0"]
    assert [h.chunk.id for h in index.search(["c1"], "pump", 5)] == ["d1-0"]
    index.replace_document("c1", "d1", chunks("c1", "d1", ["A new pump note."]))
    assert [c.text for c in index.document_chunks("c1", "d1")] == ["A new pump note."]
    assert len(fake.items) == 2  # the chunk and its head: the old item is gone


def test_two_replaces_of_one_document_in_a_row_leave_one_whole_generation(cosmos) -> None:
    """A retried activity and a newer upload's can overlap: whichever swaps last, the
    document keeps exactly one generation's chunks, never none."""
    index, fake = cosmos
    fake.pause_writes = True
    first = threading.Thread(
        target=index.replace_document, args=("c1", "d1", chunks("c1", "d1", _texts("old", 3)))
    )
    first.start()
    assert fake.written.acquire(timeout=WAIT)  # the first swap is written, not cleaned up
    fake.pause_writes = False
    index.replace_document("c1", "d1", chunks("c1", "d1", _texts("new", 2)))
    fake.resume()
    first.join(WAIT)
    assert [c.text for c in index.document_chunks("c1", "d1")] == _texts("new", 2)
    assert index.count("c1") == 2
    assert len(fake.items) == 3  # two chunks and the head
