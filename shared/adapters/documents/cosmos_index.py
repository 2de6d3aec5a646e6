"""The Index on Cosmos DB for NoSQL full-text search (BM25), in the app's serverless account.

One item per chunk in ``COSMOS_CHUNKS_CONTAINER`` (partition key ``/collection_id``,
a full-text policy and index on ``/text``: infra/app/cosmos.bicep). A search is one
query per collection, in its partition::

    SELECT TOP 20 c.id, ... FROM c
    WHERE FullTextContainsAny(c.text, "pump", "seal")
    ORDER BY RANK FullTextScore(c.text, "pump", "seal")

With a query vector (hybrid search) the query is the documented hybrid shape, with
no ``WHERE`` so that a chunk sharing no word with the query is still ranked by its
vector (``embedding``: the container's vector embedding policy and index)::

    SELECT TOP 20 c.id, ... FROM c
    ORDER BY RANK RRF(FullTextScore(c.text, "pump", "seal"),
                      VectorDistance(c.embedding, @vector))

``FullTextScore`` may not be projected, so a hit's score is its rank (reciprocal),
and hits of several collections are merged by that. The terms are the query's
words (``\\w+`` only), so they are written into the query as string literals
without any escaping to get wrong. Replacing a document writes a new generation of
its chunks in transactional batches and makes it current with one write
(``cosmos_generations.py``): a reader sees the old chunks or the new ones.
"""

from __future__ import annotations

from contextlib import suppress
from typing import Any

from azure.cosmos import ContainerProxy, CosmosClient

from shared.adapters.documents import cosmos_generations as gen
from shared.adapters.documents.fts import match_terms
from shared.adapters.documents.vectors import RRF_K
from shared.adapters.stores.cosmos_sdk import translated
from shared.core.collection_models import Chunk, ChunkHit
from shared.core.config import Settings
from shared.core.errors import NotFoundError

_FIELDS = (
    "c.id, c.chunk_id, c.generation, c.kind, c.collection_id, c.document_id, c.ordinal,"
    " c.title, c.origin, c.heading_path, c.page, c.text"
)
_STATE = "c.id, c.document_id, c.generation, c.kind"
HEADS = 'SELECT c.document_id, c.generation, c.kind FROM c WHERE c.kind = "head"'
# A search asks for this many times the hits it returns: another generation's chunks
# (while a document is being replaced) are dropped after the query.
_OVERFETCH = 2
_READ_ATTEMPTS = 3  # reads of one document while its head keeps moving (replaces in a row)


def search_query(terms: list[str], limit: int, hybrid: bool = False) -> str:
    """The full-text query, or with ``hybrid`` the RRF of it and ``@vector``'s distance."""
    quoted = ", ".join(f'"{t}"' for t in terms)
    if hybrid:
        return (
            f"SELECT TOP {int(limit)} {_FIELDS} FROM c"
            f" ORDER BY RANK RRF(FullTextScore(c.text, {quoted}),"
            f" VectorDistance(c.embedding, @vector))"
        )
    return (
        f"SELECT TOP {int(limit)} {_FIELDS} FROM c"
        f" WHERE FullTextContainsAny(c.text, {quoted})"
        f" ORDER BY RANK FullTextScore(c.text, {quoted})"
    )


class CosmosIndex:
    kind = "cosmos-fulltext"

    def __init__(self, settings: Settings, container: ContainerProxy | None = None) -> None:
        self._container = container or _open(settings)

    def replace_document(
        self,
        collection_id: str,
        document_id: str,
        chunks: list[Chunk],
        vectors: list[list[float]] | None = None,
    ) -> int:
        current = gen.generation(chunks)
        embeddings = vectors if vectors is not None else [None] * len(chunks)
        items = [
            gen.chunk_item(chunk, embedding, current)
            for chunk, embedding in zip(chunks, embeddings, strict=True)
        ]
        head = gen.head_item(collection_id, document_id, current)
        for batch in gen.write_batches(items, head):
            self._batch(collection_id, batch)
        # Another replace of the same document may have moved the head on since: its
        # generation stays too, so the document never ends without visible chunks.
        keep = {current, self._head(collection_id, document_id)}
        rows = self._rows(collection_id, document_id)
        stale = [
            r["id"] for r in rows if r.get("kind") != gen.HEAD and r.get("generation") not in keep
        ]
        self._delete(collection_id, stale)
        return len(chunks)

    def vectors(self, collection_id: str, document_id: str) -> dict[str, list[float]]:
        query = "SELECT c.text, c.embedding FROM c WHERE c.document_id = @document_id"
        rows = self._query(query, collection_id, [("@document_id", document_id)])
        return {r["text"]: r["embedding"] for r in rows if r.get("text") and r.get("embedding")}

    def delete_document(self, collection_id: str, document_id: str) -> int:
        return self._delete_all(self._rows(collection_id, document_id), collection_id)

    def delete_collection(self, collection_id: str) -> int:
        return self._delete_all(self._rows(collection_id, None), collection_id)

    def count(self, collection_id: str, document_id: str | None = None) -> int:
        rows = self._rows(collection_id, document_id)
        return len(gen.visible(rows, gen.heads_of(rows)))

    def document_chunks(self, collection_id: str, document_id: str) -> list[Chunk]:
        """The head is read before and after the query, which may come in pages: when it
        did not move, no chunk of its generation was deleted meanwhile (a replace deletes
        a generation only once the head has left it), so the document is whole."""
        query = f"SELECT {_FIELDS} FROM c WHERE c.document_id = @document_id"
        for _ in range(_READ_ATTEMPTS):
            before = self._head(collection_id, document_id)
            rows = self._query(query, collection_id, [("@document_id", document_id)])
            if self._head(collection_id, document_id) == before:
                break
        heads = {document_id: before} if before is not None else {}
        return sorted((_chunk(r) for r in gen.visible(rows, heads)), key=lambda c: c.ordinal)

    def search(
        self,
        collection_ids: list[str],
        query: str,
        limit: int,
        vector: list[float] | None = None,
    ) -> list[ChunkHit]:
        terms = match_terms(query)
        if not terms or limit <= 0:
            return []
        text = search_query(terms, limit * _OVERFETCH, hybrid=bool(vector))
        parameters: list[tuple[str, Any]] = [("@vector", vector)] if vector else []
        ranked: list[ChunkHit] = []
        for collection_id in collection_ids:
            rows = self._query(text, collection_id, parameters)
            heads = gen.heads_of(self._query(HEADS, collection_id, []))
            ranked += [
                ChunkHit(chunk=_chunk(r), score=1.0 / (RRF_K + rank))
                for rank, r in enumerate(gen.visible(rows, heads), start=1)
            ]
        return sorted(ranked, key=lambda h: h.score, reverse=True)[:limit]

    def ping(self) -> None:
        with translated():
            self._container.read()

    def _head(self, collection_id: str, document_id: str) -> str | None:
        """The document's current generation; None before its first generational write."""
        try:
            with translated():
                head = self._container.read_item(gen.head_id(document_id), collection_id)
        except NotFoundError:
            return None
        return head["generation"]

    def _rows(self, collection_id: str, document_id: str | None) -> list[dict]:
        """Every item of the document (or collection): chunks of any generation, heads."""
        if document_id is None:
            return self._query(f"SELECT {_STATE} FROM c", collection_id, [])
        query = f"SELECT {_STATE} FROM c WHERE c.document_id = @document_id"
        return self._query(query, collection_id, [("@document_id", document_id)])

    def _delete_all(self, rows: list[dict], collection_id: str) -> int:
        """Heads first, so that what is left is already invisible while it goes."""
        shown = len(gen.visible(rows, gen.heads_of(rows)))
        ordered = sorted(rows, key=lambda r: r.get("kind") != gen.HEAD)
        self._delete(collection_id, [r["id"] for r in ordered])
        return shown

    def _delete(self, collection_id: str, ids: list[str]) -> None:
        for batch in gen.delete_batches(ids):
            try:
                self._batch(collection_id, batch)
            except NotFoundError:  # a concurrent delete got there first: go one by one
                for _, (item_id,) in batch:
                    with suppress(NotFoundError), translated():
                        self._container.delete_item(item_id, partition_key=collection_id)

    def _batch(self, collection_id: str, operations: list[gen.Operation]) -> None:
        with translated():
            self._container.execute_item_batch(operations, partition_key=collection_id)

    def _query(
        self, query: str, collection_id: str, parameters: list[tuple[str, Any]]
    ) -> list[dict]:
        with translated():
            return list(
                self._container.query_items(
                    query,
                    parameters=[{"name": n, "value": v} for n, v in parameters],
                    partition_key=collection_id,
                )
            )


def _chunk(row: dict) -> Chunk:
    fields = {k: v for k, v in row.items() if not k.startswith("_") and v is not None}
    fields["id"] = row.get("chunk_id") or row["id"]  # items written before generations
    return Chunk.model_validate(fields)


def _open(settings: Settings) -> ContainerProxy:
    if settings.cosmos_key is not None:
        credential: Any = settings.cosmos_key.get_secret_value()
    else:
        from azure.identity import DefaultAzureCredential

        credential = DefaultAzureCredential()
    with translated():
        client = CosmosClient(
            settings.cosmos_endpoint,
            credential=credential,
            connection_verify=settings.cosmos_verify_tls,
        )
        database = client.get_database_client(settings.cosmos_database)
        return database.get_container_client(settings.cosmos_chunks_container)
