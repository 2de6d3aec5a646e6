"""The documents port: an ``Index`` of chunks, searched by relevance within collections.

Adapters: ``fts.py`` (SQLite FTS5, BM25, with a cosine scan of stored vectors;
embedded) and ``cosmos_index.py`` (Cosmos DB full-text and vector search). The
``DocumentParser`` port (``parsing.py``: pypdf, python-docx, the HTML extractor)
turns an upload into sections; ``chunking.py`` (pure) turns sections into chunks.

Index guarantees:
- ``replace_document`` swaps a document's chunks in one step: a reader sees the old
  chunks or the new ones, never a mix, and running it twice leaves the same chunks
  (ingestion activities run at least once);
- ``search`` only returns chunks of the collections it is given: the caller has
  already checked that its principal may read them;
- hits are best first, grouped by nothing: grouping per document is the retrieval
  pipeline's work;
- with a query ``vector`` (hybrid search, ``hybrid.py``), the hits are the
  reciprocal-rank fusion of the BM25 ranking and the cosine ranking over the chunks
  stored with a vector, so a chunk sharing no word with the query can still be found;
  chunks stored without one are found by their words only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from shared.core.collection_models import Chunk, ChunkHit
from shared.core.errors import PermanentError


class UnreadableDocument(PermanentError):
    """A document that cannot be parsed (corrupt, encrypted, an unsupported format).

    Permanent and per document: ingestion records it on that document and goes on
    with the rest of the batch."""


@dataclass(frozen=True)
class Section:
    """A run of text under one heading path, on one page when the format has pages."""

    text: str
    heading_path: tuple[str, ...] = ()
    page: int | None = None


@dataclass(frozen=True)
class ParsedDocument:
    title: str
    sections: list[Section] = field(default_factory=list)
    pages: int | None = None


@runtime_checkable
class DocumentParser(Protocol):
    def parse(self, name: str, data: bytes) -> tuple[str, ParsedDocument]:
        """The document's media type and sections; ``UnreadableDocument`` if it has none."""
        ...


@runtime_checkable
class Embedder(Protocol):
    """Texts to vectors (``shared/adapters/search/embeddings.py``)."""

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order; ``EmbeddingsUnavailable`` when the endpoint fails."""
        ...


@runtime_checkable
class Index(Protocol):
    def replace_document(
        self,
        collection_id: str,
        document_id: str,
        chunks: list[Chunk],
        vectors: list[list[float]] | None = None,
    ) -> int:
        """Make ``chunks`` (with ``vectors``, one per chunk, if given) the document's only
        chunks; returns how many it has now."""
        ...

    def vectors(self, collection_id: str, document_id: str) -> dict[str, list[float]]:
        """The document's stored vectors by chunk text: what re-ingesting may reuse."""
        ...

    def delete_document(self, collection_id: str, document_id: str) -> int: ...

    def delete_collection(self, collection_id: str) -> int: ...

    def count(self, collection_id: str, document_id: str | None = None) -> int: ...

    def document_chunks(self, collection_id: str, document_id: str) -> list[Chunk]:
        """Every chunk of one document, in reading order."""
        ...

    def search(
        self,
        collection_ids: list[str],
        query: str,
        limit: int,
        vector: list[float] | None = None,
    ) -> list[ChunkHit]:
        """The best ``limit`` chunks for ``query`` (and its ``vector``) in those
        collections, best first; none for a query without a word."""
        ...

    def ping(self) -> None: ...
