"""The vectors of a document's chunks at ingestion, when an embedding model is set.

A chunk whose text the index already holds a vector for keeps it, so ingesting
the same document again (a retried activity, a host resumed after a crash) makes
no embeddings call, and a changed document pays only for its changed chunks. The
others are embedded in batches. When the endpoint fails the document is still
ingested, by its words: its record says ``vectors: missing`` and why, and
uploading the same file again retries the embeddings.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from shared.core.collection_models import Chunk, VectorState
from shared.core.errors import EmbeddingsUnavailable

if TYPE_CHECKING:
    from shared.ports import Services

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChunkVectors:
    vectors: list[list[float]] | None  # one per chunk, or None: stored without vectors
    state: VectorState
    error: str | None = None


def chunk_vectors(
    svc: Services, collection_id: str, document_id: str, chunks: list[Chunk]
) -> ChunkVectors:
    embedder = svc.embedder
    if embedder is None:
        return ChunkVectors(None, VectorState.off)
    known = svc.index.vectors(collection_id, document_id)
    wanted = list(dict.fromkeys(c.text for c in chunks if c.text not in known))
    if wanted:
        try:
            known |= dict(zip(wanted, embedder.embed(wanted), strict=True))
        except EmbeddingsUnavailable as exc:
            log.warning("document %s indexed without vectors: %s", document_id, exc)
            return ChunkVectors(None, VectorState.missing, str(exc))
    return ChunkVectors([known[c.text] for c in chunks], VectorState.stored)
