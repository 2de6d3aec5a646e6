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
without any escaping to get wrong. Replacing a document upserts its chunks and then
deletes the ones it no longer has: idempotent, though not one transaction.
"""

from __future__ import annotations

from typing import Any

from azure.cosmos import ContainerProxy, CosmosClient

from shared.adapters.documents.fts import match_terms
from shared.adapters.documents.vectors import RRF_K
from shared.adapters.stores.cosmos_sdk import translated
from shared.core.collection_models import Chunk, ChunkHit
from shared.core.config import Settings

_FIELDS = (
    "c.id, c.collection_id, c.document_id, c.ordinal, c.title, c.origin, c.heading_path,"
    " c.page, c.text"
)


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
        keep = {c.id for c in chunks}
        embeddings = vectors if vectors is not None else [None] * len(chunks)
        with translated():
            for chunk, embedding in zip(chunks, embeddings, strict=True):
                self._container.upsert_item(_item(chunk, embedding))
            for old in self._ids(collection_id, document_id):
                if old not in keep:
                    self._container.delete_item(old, partition_key=collection_id)
        return len(chunks)

    def vectors(self, collection_id: str, document_id: str) -> dict[str, list[float]]:
        query = "SELECT c.text, c.embedding FROM c WHERE c.document_id = @document_id"
        rows = self._query(query, collection_id, [("@document_id", document_id)])
        return {r["text"]: r["embedding"] for r in rows if r.get("embedding")}

    def delete_document(self, collection_id: str, document_id: str) -> int:
        return self._delete(collection_id, self._ids(collection_id, document_id))

    def delete_collection(self, collection_id: str) -> int:
        return self._delete(collection_id, self._ids(collection_id, None))

    def count(self, collection_id: str, document_id: str | None = None) -> int:
        return len(self._ids(collection_id, document_id))

    def document_chunks(self, collection_id: str, document_id: str) -> list[Chunk]:
        query = f"SELECT {_FIELDS} FROM c WHERE c.document_id = @document_id"
        rows = self._query(query, collection_id, [("@document_id", document_id)])
        return sorted((_chunk(r) for r in rows), key=lambda c: c.ordinal)

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
        text = search_query(terms, limit, hybrid=bool(vector))
        parameters: list[tuple[str, Any]] = [("@vector", vector)] if vector else []
        ranked: list[ChunkHit] = []
        for collection_id in collection_ids:
            rows = self._query(text, collection_id, parameters)
            ranked += [
                ChunkHit(chunk=_chunk(r), score=1.0 / (RRF_K + rank))
                for rank, r in enumerate(rows, start=1)
            ]
        return sorted(ranked, key=lambda h: h.score, reverse=True)[:limit]

    def ping(self) -> None:
        with translated():
            self._container.read()

    def _ids(self, collection_id: str, document_id: str | None) -> list[str]:
        if document_id is None:
            rows = self._query("SELECT c.id FROM c", collection_id, [])
        else:
            query = "SELECT c.id FROM c WHERE c.document_id = @document_id"
            rows = self._query(query, collection_id, [("@document_id", document_id)])
        return [r["id"] for r in rows]

    def _delete(self, collection_id: str, ids: list[str]) -> int:
        with translated():
            for item_id in ids:
                self._container.delete_item(item_id, partition_key=collection_id)
        return len(ids)

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


def _item(chunk: Chunk, embedding: list[float] | None) -> dict:
    item = chunk.model_dump(mode="json")
    if embedding:
        item["embedding"] = embedding
    return item


def _chunk(row: dict) -> Chunk:
    return Chunk.model_validate({k: v for k, v in row.items() if not k.startswith("_")})


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
