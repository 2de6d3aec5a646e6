"""BuiltinIndex: the built-in collection's ``Index``, ranked by its FTS5 file, read from memory.

The collection is read-only and small (the Python documentation: ~140 documents, ~1,100
chunks), and loading it already builds every chunk with its sentences
(``builtin_store``). So the worker keeps them, for as long as it lives, and its file is
asked only what it alone knows: which chunks a query matches, and their BM25 scores.
Reading a document is a dictionary look-up, and a search reads back ids and scores, not a
thousand rows of text turned into models (that was most of a search's CPU, and the
researchers of one session share a process and its GIL: bench.profile). Nothing to
invalidate: the file never changes under a worker (it is keyed by its content and
replaced, never written), and a team's collections never reach this class
(``RoutedIndex`` routes by collection id). Memory is the collection's own size, once.
"""

from __future__ import annotations

from pathlib import Path

from shared.adapters.documents.fts import SqliteIndex
from shared.core.collection_models import Chunk, ChunkHit
from shared.core.errors import PermanentError


class BuiltinIndex:
    """``Index`` over one read-only collection whose chunks ``store`` ranks and this holds.

    The chunks handed out (a search's hits, a document's chunks) are the ones held here,
    shared by every caller: they are read, never changed.
    """

    kind = "sqlite-fts5-builtin"

    def __init__(
        self, store: SqliteIndex, path: Path, collection_id: str, documents: dict[str, list[Chunk]]
    ) -> None:
        """``documents``: each document's chunks in reading order, by document id."""
        self.store = store
        self.path = path
        self.collection_id = collection_id
        self._documents = documents
        self._chunks = {c.id: c for chunks in documents.values() for c in chunks}

    def __len__(self) -> int:
        """The chunks held: the collection's, however many reads and searches came."""
        return len(self._chunks)

    def document_chunks(self, collection_id: str, document_id: str) -> list[Chunk]:
        if collection_id != self.collection_id:
            return []
        return list(self._documents.get(document_id, ()))

    def search(
        self,
        collection_ids: list[str],
        query: str,
        limit: int,
        vector: list[float] | None = None,
    ) -> list[ChunkHit]:
        """The file's BM25 ranking (it holds no vectors: ``vector`` is not used)."""
        ranked = self.store.ranked_chunk_ids(collection_ids, query, limit)
        return [ChunkHit(chunk=self._chunks[i], score=score) for i, score in ranked]

    def ranked(self, query: str, limit: int) -> list[tuple[Chunk, float]]:
        """``search`` over the collection as (chunk, score) pairs, for weighing them."""
        ranked = self.store.ranked_chunk_ids([self.collection_id], query, limit)
        return [(self._chunks[i], score) for i, score in ranked]

    def count(self, collection_id: str, document_id: str | None = None) -> int:
        return self.store.count(collection_id, document_id)

    def vectors(self, collection_id: str, document_id: str) -> dict[str, list[float]]:
        return {}

    def replace_document(
        self,
        collection_id: str,
        document_id: str,
        chunks: list[Chunk],
        vectors: list[list[float]] | None = None,
    ) -> int:
        raise self._read_only()

    def delete_document(self, collection_id: str, document_id: str) -> int:
        raise self._read_only()

    def delete_collection(self, collection_id: str) -> int:
        raise self._read_only()

    def ping(self) -> None:
        self.store.ping()

    def _read_only(self) -> PermanentError:
        return PermanentError(f"the index {self.path.name} is read-only")
