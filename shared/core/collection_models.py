"""Collections: a person's documents, their ingestion status and the chunks a citation points at.

A collection belongs to its owner exactly as a session does (``shared.usecases.access``).
A document's id is derived from its name inside the collection, so uploading the same
file name again addresses the same document: an unchanged content hash is a no-op, a
changed one replaces the document's chunks.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field

from shared.core.session_models import Owner

DOCUMENT_ID_CHARS = 24


class DocumentStatus(StrEnum):
    queued = "queued"
    ingested = "ingested"
    failed = "failed"


class VectorState(StrEnum):
    """Whether a document's chunks carry embeddings (hybrid search, EMBEDDING_MODEL)."""

    off = "off"  # no embedding model configured: searched by words (BM25) only
    stored = "stored"  # every chunk has its vector
    missing = "missing"  # the embeddings call failed: searched by words only until re-uploaded


class Collection(BaseModel):
    id: str
    name: str
    owner: Owner
    created_at: datetime
    updated_at: datetime
    # The service's own documentation (``python-docs``): listed for everyone, read-only.
    built_in: bool = False


class DocumentRecord(BaseModel):
    """One document of a collection: where it came from, what ingesting it gave."""

    id: str
    collection_id: str
    name: str  # the file name, or the URL it was fetched from
    media_type: str
    size: int
    content_hash: str  # SHA-256 of the original: what makes a re-upload a no-op
    status: DocumentStatus = DocumentStatus.queued
    title: str = ""
    chunks: int = 0
    pages: int | None = None
    error: str | None = None
    vectors: VectorState = VectorState.off
    vector_error: str | None = None  # why ``vectors`` is ``missing``
    updated_at: datetime


class Chunk(BaseModel):
    """A passage small enough to cite, with what a citation needs to find it again."""

    id: str
    collection_id: str
    document_id: str
    ordinal: int
    title: str
    origin: str  # file name or URL
    heading_path: list[str] = Field(default_factory=list)
    page: int | None = None
    text: str
    # The chunk's prose sentences, split when it was indexed (the built-in collection keeps
    # them, so a page read from it is not split again per session); None: split when read.
    sentences: list[str] | None = Field(default=None, exclude=True)
    # Their content tokens, stored beside them in the built-in collection's file; None elsewhere.
    sentence_tokens: list[list[str]] | None = Field(default=None, exclude=True)


class BuiltinCatalog(BaseModel):
    """The built-in collection as the collection routes describe it."""

    collection: Collection
    documents: list[DocumentRecord]


class ChunkHit(BaseModel):
    chunk: Chunk
    score: float  # higher is better


def document_id(collection_id: str, name: str) -> str:
    """The id of the document called ``name`` in the collection: stable across re-uploads."""
    digest = hashlib.sha256(f"{collection_id}\n{name}".encode()).hexdigest()
    return digest[:DOCUMENT_ID_CHARS]


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class IngestIn(BaseModel):
    """The ingestion orchestration's input: the documents of one upload, by reference."""

    collection_id: str
    document_ids: list[str]


class IngestDocumentIn(BaseModel):
    collection_id: str
    document_id: str


class IngestDocumentOut(BaseModel):
    document_id: str
    status: DocumentStatus
    chunks: int = 0


class IngestProgress(BaseModel):
    """The orchestration's custom status and output: counts only (the records say the rest)."""

    phase: str = "ingesting"
    total: int = 0
    done: int = 0
    ingested: int = 0
    failed: int = 0
    chunks: int = 0
