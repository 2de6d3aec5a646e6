"""Hybrid search: an ``Index`` whose searches carry the query's embedding.

The composition root wraps the index in this when ``EMBEDDING_MODEL`` is set.
Each search embeds the query once (one embeddings call) and hands the vector to
the adapter, which fuses its BM25 and vector rankings (RRF). When the endpoint
fails, the search goes on with words alone and the failure is logged: recall
drops to the lexical one, the research does not stop. Everything else passes
through unchanged.
"""

from __future__ import annotations

import logging

from shared.adapters.documents.base import Embedder, Index
from shared.adapters.documents.fts import match_terms
from shared.core.collection_models import Chunk, ChunkHit
from shared.core.errors import EmbeddingsUnavailable

log = logging.getLogger(__name__)


class HybridIndex:
    def __init__(self, index: Index, embedder: Embedder) -> None:
        self._index = index
        self._embedder = embedder
        self.kind = f"{getattr(index, 'kind', 'index')}+vectors"

    def search(
        self,
        collection_ids: list[str],
        query: str,
        limit: int,
        vector: list[float] | None = None,
    ) -> list[ChunkHit]:
        if vector is None and collection_ids and limit > 0 and match_terms(query):
            try:
                [vector] = self._embedder.embed([query])
            except EmbeddingsUnavailable as exc:
                log.warning("query embedding failed (%s): searching by words only", exc)
        return self._index.search(collection_ids, query, limit, vector)

    def replace_document(
        self,
        collection_id: str,
        document_id: str,
        chunks: list[Chunk],
        vectors: list[list[float]] | None = None,
    ) -> int:
        return self._index.replace_document(collection_id, document_id, chunks, vectors)

    def vectors(self, collection_id: str, document_id: str) -> dict[str, list[float]]:
        return self._index.vectors(collection_id, document_id)

    def delete_document(self, collection_id: str, document_id: str) -> int:
        return self._index.delete_document(collection_id, document_id)

    def delete_collection(self, collection_id: str) -> int:
        return self._index.delete_collection(collection_id)

    def count(self, collection_id: str, document_id: str | None = None) -> int:
        return self._index.count(collection_id, document_id)

    def document_chunks(self, collection_id: str, document_id: str) -> list[Chunk]:
        return self._index.document_chunks(collection_id, document_id)

    def ping(self) -> None:
        self._index.ping()
