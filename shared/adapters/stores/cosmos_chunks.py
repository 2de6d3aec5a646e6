"""The answer chunks of the Cosmos session store (``shared.core.stream_models``).

One ``chunk`` document per chunk, id ``_chunk-{seq:09d}``, in a partition of the
session's own (``/chat_id`` = ``_chunks.{session id}``; a chat id never starts
with ``_`` and never holds ``.``): a writer needs no read of the session to find
its chat, a reader pages through one small partition, and the session's delete
removes the partition's documents. ``create_item`` refuses an id that exists
(409 → ``ConflictError``), so two writers can never both hold one seq.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from azure.cosmos import exceptions as cosmos_errors

from shared.adapters.stores.base import validate_session_id
from shared.core.errors import ConflictError, NotFoundError
from shared.core.stream_models import AnswerChunk

Query = Callable[..., list[dict[str, Any]]]


def partition_of(session_id: str) -> str:
    return f"_chunks.{validate_session_id(session_id)}"


class CosmosChunks:
    """Append, page and delete a session's chunks through the store's container."""

    def __init__(
        self, container: Any, call: Callable[[str], AbstractContextManager[None]], query: Query
    ) -> None:
        self._container = container
        self._call = call
        self._query = query

    def append(self, session_id: str, chunks: list[AnswerChunk]) -> None:
        """One create per chunk, in seq order: a reader never sees a later seq without
        the earlier ones of this call (a failure part-way leaves a prefix)."""
        partition = partition_of(session_id)
        for chunk in chunks:
            doc = {
                "id": f"_chunk-{chunk.seq:09d}",
                "type": "chunk",
                "chat_id": partition,
                "session_id": session_id,  # what a purge check looks for
                **chunk.model_dump(mode="json"),
            }
            with self._call("create"):
                try:
                    self._container.create_item(doc)
                except cosmos_errors.CosmosResourceExistsError as exc:
                    raise ConflictError(f"chunk {chunk.seq} of {session_id!r} exists") from exc

    def after(self, session_id: str, after: int, limit: int) -> list[AnswerChunk]:
        partition = partition_of(session_id)
        docs = self._query(
            "SELECT TOP @n * FROM c WHERE c.chat_id = @p AND c.type = 'chunk'"
            " AND c.seq > @after ORDER BY c.seq",
            {"@n": max(limit, 0), "@p": partition, "@after": after},
            partition,
        )
        return [AnswerChunk.model_validate(doc) for doc in docs]

    def last_seq(self, session_id: str) -> int:
        partition = partition_of(session_id)
        docs = self._query(
            "SELECT TOP 1 c.seq FROM c WHERE c.chat_id = @p AND c.type = 'chunk'"
            " ORDER BY c.seq DESC",
            {"@p": partition},
            partition,
        )
        return int(docs[0]["seq"]) if docs else 0

    def delete(self, session_id: str) -> None:
        """Every chunk of the session; idempotent (a retried delete finds fewer or none)."""
        partition = partition_of(session_id)
        docs = self._query(
            "SELECT c.id FROM c WHERE c.chat_id = @p AND c.type = 'chunk'",
            {"@p": partition},
            partition,
        )
        for doc in docs:
            try:
                with self._call("delete"):
                    self._container.delete_item(doc["id"], partition_key=partition)
            except NotFoundError:
                pass
