"""The documents port: an ``Index`` of chunks, searched by relevance within collections.

Adapters: ``fts.py`` (SQLite FTS5, BM25; embedded). The ``DocumentParser`` port
(``parsing.py``: pypdf, python-docx, the HTML extractor) turns an upload into sections;
``chunking.py`` (pure) turns sections into chunks.

Index guarantees:
- ``replace_document`` swaps a document's chunks in one step: a reader sees the old
  chunks or the new ones, never a mix, and running it twice leaves the same chunks
  (ingestion activities run at least once);
- ``search`` only returns chunks of the collections it is given: the caller has
  already checked that its principal may read them;
- hits are best first, grouped by nothing: grouping per document is the retrieval
  pipeline's work.
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
class Index(Protocol):
    def replace_document(self, collection_id: str, document_id: str, chunks: list[Chunk]) -> int:
        """Make ``chunks`` the document's only chunks; returns how many it has now."""
        ...

    def delete_document(self, collection_id: str, document_id: str) -> int: ...

    def delete_collection(self, collection_id: str) -> int: ...

    def count(self, collection_id: str, document_id: str | None = None) -> int: ...

    def document_chunks(self, collection_id: str, document_id: str) -> list[Chunk]:
        """Every chunk of one document, in reading order."""
        ...

    def search(self, collection_ids: list[str], query: str, limit: int) -> list[ChunkHit]:
        """The best ``limit`` chunks for ``query`` in those collections, best first."""
        ...

    def ping(self) -> None: ...
