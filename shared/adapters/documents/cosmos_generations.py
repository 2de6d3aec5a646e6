"""Swapping a document's chunks on Cosmos DB so that a reader never sees a mix.

A transactional batch is atomic but bounded (one partition, at most
``COSMOS_BATCH_MAX_OPERATIONS`` operations and ``COSMOS_BATCH_MAX_BYTES`` of payload),
and a long document's chunks, with vectors, do not fit in one. So every write is
made invisible until it is complete, and one small write makes it visible:

- each chunk item carries the ``generation`` it was written for (a hash of the
  document's chunks), and its item id ends with it, so a new generation never
  overwrites the items readers are using;
- a per-document *head* item (``kind: "head"``) names the current generation; a
  reader keeps a chunk only when its generation is its document's head's (items
  written before heads existed, without a generation, count while their document
  has no head);
- a replace writes the new generation's items, then the head (in the last batch
  when it fits, else alone: one item, atomic by itself), then deletes the items
  of other generations, which nobody sees any more.

A document small enough for one batch is therefore swapped in exactly one request.
A replace that stops half way leaves invisible items that the retried activity
writes again (same generation, same ids) or deletes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from shared.core.collection_models import Chunk
from shared.core.limits import COSMOS_BATCH_MAX_BYTES, COSMOS_BATCH_MAX_OPERATIONS

HEAD = "head"
Operation = tuple[str, tuple[Any, ...]]
_ENVELOPE_BYTES = 64  # an operation's own JSON around its item


def generation(chunks: list[Chunk]) -> str:
    """Deterministic, so a retried replace writes the same items again."""
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk.model_dump_json().encode() + b"\x00")
    return digest.hexdigest()[:16]


def head_id(document_id: str) -> str:
    return f"{HEAD}~{document_id}"


def chunk_item(chunk: Chunk, embedding: list[float] | None, gen: str) -> dict:
    item = chunk.model_dump(mode="json")
    item.update(id=f"{chunk.id}~{gen}", chunk_id=chunk.id, generation=gen)
    if embedding:
        item["embedding"] = embedding
    return item


def head_item(collection_id: str, document_id: str, gen: str) -> dict:
    return {
        "id": head_id(document_id),
        "collection_id": collection_id,
        "document_id": document_id,
        "kind": HEAD,
        "generation": gen,
    }


def write_batches(items: list[dict], head: dict) -> list[list[Operation]]:
    """Upserts of ``items`` packed into batches, the head last (in the last batch if it fits)."""
    batches: list[list[Operation]] = []
    current: list[Operation] = []
    size = 0
    for item in [*items, head]:
        weight = len(json.dumps(item)) + _ENVELOPE_BYTES
        full = len(current) >= COSMOS_BATCH_MAX_OPERATIONS
        if current and (full or size + weight > COSMOS_BATCH_MAX_BYTES):
            batches.append(current)
            current, size = [], 0
        current.append(("upsert", (item,)))
        size += weight
    batches.append(current)
    return batches


def delete_batches(item_ids: Iterable[str]) -> list[list[Operation]]:
    ids = list(item_ids)
    step = COSMOS_BATCH_MAX_OPERATIONS
    return [[("delete", (i,)) for i in ids[n : n + step]] for n in range(0, len(ids), step)]


def heads_of(rows: list[dict]) -> dict[str, str]:
    return {r["document_id"]: r["generation"] for r in rows if r.get("kind") == HEAD}


def visible(rows: list[dict], heads: dict[str, str]) -> list[dict]:
    """The chunk rows a reader may see: each of its document's current generation."""
    return [
        r
        for r in rows
        if r.get("kind") != HEAD and r.get("generation") == heads.get(r.get("document_id", ""))
    ]
