"""One ``Index`` over two: the teams' collections and the built-in, read-only ones.

The built-in collection (the Python documentation) lives in its own SQLite FTS5 file,
built once per corpus and opened read-only; a team's collections live in the configured
index (SQLite locally, Cosmos DB in Azure). Routing by collection id keeps one search
path: ``CollectionSearch`` and ``CollectionReader`` see one ``Index``. A search over both
kinds interleaves the two rankings by rank (their BM25 scores are not on one scale).
Writing to a built-in collection is a ``ConflictError``: the use cases refuse it first,
with the same words, so this is the floor, not the message users see.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import chain, zip_longest

from shared.adapters.documents.base import Index
from shared.core.collection_models import Chunk, ChunkHit
from shared.core.errors import ConflictError


def read_only_error(collection_id: str) -> ConflictError:
    return ConflictError(
        f"collection {collection_id!r} is built in and read-only: it cannot be changed"
    )


class RoutedIndex:
    def __init__(self, teams: Index, builtin: Mapping[str, Callable[[], Index]]) -> None:
        self._teams = teams
        self._builtin = dict(builtin)  # collection id -> its index, opened on first use
        self.kind = getattr(teams, "kind", "index")

    def is_builtin(self, collection_id: str) -> bool:
        return collection_id in self._builtin

    def _writable(self, collection_id: str) -> Index:
        if collection_id in self._builtin:
            raise read_only_error(collection_id)
        return self._teams

    def _reader(self, collection_id: str) -> Index:
        opener = self._builtin.get(collection_id)
        return opener() if opener is not None else self._teams

    def replace_document(
        self,
        collection_id: str,
        document_id: str,
        chunks: list[Chunk],
        vectors: list[list[float]] | None = None,
    ) -> int:
        index = self._writable(collection_id)
        return index.replace_document(collection_id, document_id, chunks, vectors)

    def vectors(self, collection_id: str, document_id: str) -> dict[str, list[float]]:
        return self._writable(collection_id).vectors(collection_id, document_id)

    def delete_document(self, collection_id: str, document_id: str) -> int:
        return self._writable(collection_id).delete_document(collection_id, document_id)

    def delete_collection(self, collection_id: str) -> int:
        return self._writable(collection_id).delete_collection(collection_id)

    def count(self, collection_id: str, document_id: str | None = None) -> int:
        return self._reader(collection_id).count(collection_id, document_id)

    def document_chunks(self, collection_id: str, document_id: str) -> list[Chunk]:
        return self._reader(collection_id).document_chunks(collection_id, document_id)

    def search(
        self,
        collection_ids: list[str],
        query: str,
        limit: int,
        vector: list[float] | None = None,
    ) -> list[ChunkHit]:
        """``vector`` reaches the teams' index only: the built-in file holds no vectors."""
        groups: dict[int, tuple[Index, list[str]]] = {}
        for collection_id in collection_ids:
            index = self._reader(collection_id)
            groups.setdefault(id(index), (index, []))[1].append(collection_id)
        rankings = [
            index.search(ids, query, limit, vector)
            if index is self._teams and vector is not None
            else index.search(ids, query, limit)
            for index, ids in groups.values()
        ]
        if len(rankings) == 1:
            return rankings[0]
        merged = chain.from_iterable(zip_longest(*rankings))
        return [hit for hit in merged if hit is not None][:limit]

    def ping(self) -> None:
        self._teams.ping()
