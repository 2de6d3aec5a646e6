"""The built-in collection's index: its chunks held in memory, its file asked only to rank.

What a reader or a search gets must be exactly what the SQLite file gives (the same chunks,
sentences, order and scores), with no round trip to the file per read; a team's collection
beside it is never served from this memory, so its changes show at once.
"""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from shared.adapters.documents.collection_search import CollectionReader, corpus_document_id
from shared.adapters.documents.fts import SqliteIndex
from shared.adapters.documents.routed_index import RoutedIndex
from shared.adapters.search import builtin_store
from shared.adapters.search.builtin_corpus import BuiltinCorpus
from shared.adapters.search.builtin_index import BuiltinIndex
from shared.core.collection_models import Chunk
from shared.core.config import Settings
from shared.core.errors import PermanentError


class CountingSqliteIndex(SqliteIndex):
    """A real SQLite index counting the round trips asked of it through the Index port."""

    def __init__(self, path: Path, read_only: bool = False) -> None:
        super().__init__(path, read_only=read_only)
        self.calls: Counter[str] = Counter()

    def document_chunks(self, collection_id: str, document_id: str) -> list[Chunk]:
        self.calls["document_chunks"] += 1
        return super().document_chunks(collection_id, document_id)

    def search(self, collection_ids, query, limit, vector=None):
        self.calls["search"] += 1
        return super().search(collection_ids, query, limit, vector)

    def ranked_chunk_ids(self, collection_ids, query, limit):
        self.calls["ranked_chunk_ids"] += 1
        return super().ranked_chunk_ids(collection_ids, query, limit)


def _chunk(document_id: str, ordinal: int, text: str, heading: list[str]) -> Chunk:
    return Chunk(
        id=f"{document_id}-{ordinal}",
        collection_id="docs",
        document_id=document_id,
        ordinal=ordinal,
        title=f"Guide {document_id}",
        origin=f"corpus://guides/{document_id}",
        heading_path=heading,
        text=text,
    )


@pytest.fixture
def indexed(tmp_path):
    """A real FTS5 file with two documents, and the chunks as the built-in loader holds them."""
    path = tmp_path / "builtin.sqlite3"
    writer = SqliteIndex(path)
    documents = {
        "tea": [
            _chunk("tea", 0, "Green tea steeps for two minutes in hot water.", ["Steeping"]),
            _chunk("tea", 1, "Black tea wants boiling water and four minutes.", ["Black tea"]),
        ],
        "coffee": [_chunk("coffee", 0, "Coffee is brewed with hot water, not tea.", [])],
    }
    for document_id, chunks in documents.items():
        writer.replace_document("docs", document_id, chunks)
    store = CountingSqliteIndex(path, read_only=True)
    held = {
        d: [c.model_copy(update={"sentences": [c.text]}) for c in cs] for d, cs in documents.items()
    }
    return store, BuiltinIndex(store, path, "docs", held)


def test_reading_a_document_twice_asks_the_file_nothing(indexed):
    store, index = indexed
    first = index.document_chunks("docs", "tea")
    second = index.document_chunks("docs", "tea")

    assert store.calls["document_chunks"] == 0
    assert first == second
    from_file = store.document_chunks("docs", "tea")
    assert [c.model_dump() for c in first] == [c.model_dump() for c in from_file]
    assert [c.sentences for c in first] == [[c.text] for c in from_file]
    assert index.document_chunks("docs", "missing") == []
    assert index.document_chunks("other", "tea") == []


def test_a_search_gets_the_files_ranking_and_reads_back_no_rows(indexed):
    store, index = indexed
    hits = index.search(["docs"], "hot water tea", 10)
    expected = store.search(["docs"], "hot water tea", 10)

    assert store.calls["ranked_chunk_ids"] == 1 and store.calls["search"] == 1  # ours only
    assert [(h.chunk.id, h.score) for h in hits] == [(h.chunk.id, h.score) for h in expected]
    assert [h.chunk.model_dump() for h in hits] == [h.chunk.model_dump() for h in expected]
    assert index.search(["other"], "tea", 10) == [] and index.search(["docs"], "...", 10) == []


def test_the_held_chunks_stay_the_collections_however_much_is_read(indexed):
    store, index = indexed
    for query in ("tea", "coffee", "water", "minutes", "nothing here"):
        index.search(["docs"], query, 10)
        index.document_chunks("docs", query)
    assert len(index) == 3 == store.count("docs")
    with pytest.raises(PermanentError, match="read-only"):
        index.replace_document("docs", "tea", [])


def test_a_team_collection_beside_the_builtin_is_read_fresh_after_a_change(indexed, tmp_path):
    store, builtin = indexed
    teams = SqliteIndex(tmp_path / "collections.sqlite3")
    routed = RoutedIndex(teams, {"docs": lambda: builtin})
    team = _chunk("runbook", 0, "Restart the kettle service first.", [])
    team = team.model_copy(update={"collection_id": "team", "origin": "runbook.md"})
    routed.replace_document("team", "runbook", [team])
    assert routed.document_chunks("team", "runbook")[0].text.startswith("Restart the kettle")

    changed = team.model_copy(update={"text": "Descale the kettle before restarting it."})
    routed.replace_document("team", "runbook", [changed])

    assert routed.document_chunks("team", "runbook")[0].text.startswith("Descale")
    assert [h.chunk.id for h in routed.search(["team"], "descale", 5)] == ["runbook-0"]
    assert routed.document_chunks("docs", "tea")[0].id == "tea-0" and len(builtin) == 3
    assert store.calls["document_chunks"] == 0


def test_a_loaded_corpus_serves_every_document_as_its_file_does(tmp_path):
    root = tmp_path / "handbook"
    root.mkdir()
    (root / "tea.md").write_text(
        "# Tea\n\nGreen tea steeps for two minutes.\n\n## Black tea\n\nFour minutes, boiling.\n",
        encoding="utf-8",
    )
    (root / "coffee.md").write_text("# Coffee\n\nBrew coffee with hot water.\n", encoding="utf-8")
    settings = Settings(data_dir=tmp_path / "data", local_corpus_path=root)
    corpus = BuiltinCorpus(settings)
    file = SqliteIndex(builtin_store.cache_path(settings), read_only=True)
    collection = corpus.collection_id

    for doc in corpus.data.documents:
        held = corpus.index.document_chunks(collection, doc.document_id)
        assert [c.model_dump() for c in held] == [
            c.model_dump() for c in file.document_chunks(collection, doc.document_id)
        ]
        page = CollectionReader(corpus.index, [collection]).fetch(doc.url)
        assert page.text == doc.text and page.sentences == list(doc.sentences)
        assert corpus_document_id(doc.url) == doc.document_id
    hits = corpus.index.search([collection], "tea minutes", 10)
    assert [(h.chunk.model_dump(), h.score) for h in hits] == [
        (h.chunk.model_dump(), h.score) for h in file.search([collection], "tea minutes", 10)
    ]


def test_threads_ranking_at_once_each_read_the_file_through_their_own_connection(indexed):
    """The read-only file keeps a connection per thread (opening its FTS5 table again cost
    more than the query): activities in several threads rank at once, and get one answer."""
    _, index = indexed
    expected = [(h.chunk.id, h.score) for h in index.search(["docs"], "hot water tea", 10)]
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: index.search(["docs"], "hot water tea", 10), range(40)))
    assert all([(h.chunk.id, h.score) for h in hits] == expected for hits in answers)
    assert expected


class HeldRanking(CountingSqliteIndex):
    """Counts rankings; the first one waits until released, as a long ranking would."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, read_only=True)
        self.entered, self.release = threading.Event(), threading.Event()

    def ranked_chunk_ids(self, collection_ids, query, limit):
        first = not self.entered.is_set()
        self.entered.set()
        if first:
            assert self.release.wait(10)
        return super().ranked_chunk_ids(collection_ids, query, limit)


def test_researchers_searching_the_same_words_at_once_rank_them_once(tmp_path):
    """Four researchers often search the same query together: the first ranks it, the
    others wait for that ranking instead of spending the same CPU one after another."""
    root = tmp_path / "handbook"
    root.mkdir()
    (root / "tea.md").write_text("# Tea\n\nGreen tea steeps in hot water.\n", encoding="utf-8")
    (root / "coffee.md").write_text("# Coffee\n\nBrew coffee with hot water.\n", encoding="utf-8")
    settings = Settings(data_dir=tmp_path / "data", local_corpus_path=root)
    expected = BuiltinCorpus(settings).search("hot water", 5)
    corpus = BuiltinCorpus(settings)
    store = corpus.data.index.store = HeldRanking(builtin_store.cache_path(settings))
    answers: list[list] = []
    first = threading.Thread(target=lambda: answers.append(corpus.search("hot water", 5)))
    first.start()
    assert store.entered.wait(10)
    second = threading.Thread(target=lambda: answers.append(corpus.search("hot water", 5)))
    second.start()
    second.join(0.2)
    assert second.is_alive()  # waiting for the first ranking, not ranking again
    store.release.set()
    first.join(10)
    second.join(10)
    assert store.calls["ranked_chunk_ids"] == 1
    assert answers == [expected, expected] and expected
