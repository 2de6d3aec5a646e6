"""Both adapters of the documents Index: SQLite FTS5, and Cosmos DB full-text search over
HTTP against a gateway fake that checks the documented query shape
(tests/fakes/cosmos_fulltext.py; Cosmos DB has no local emulator of full-text search).
Hybrid search runs the app's embeddings client against the OpenAI-protocol fake."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from shared.adapters.documents.base import Index
from shared.adapters.documents.cosmos_index import CosmosIndex
from shared.adapters.documents.fts import SqliteIndex
from shared.adapters.documents.hybrid import HybridIndex
from shared.adapters.search.embeddings import OpenAIEmbeddings
from shared.core.collection_models import Chunk
from shared.core.config import Settings
from tests.fakes.cosmos_fulltext import FullTextCosmos
from tests.fakes.openai_server import FakeOpenAIServer, error

KEY = SecretStr(
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="
)


@pytest.fixture(params=["sqlite", "cosmos"])
def index(request: pytest.FixtureRequest, tmp_path) -> Iterator[Index]:
    if request.param == "sqlite":
        yield SqliteIndex(tmp_path / "index.sqlite3")
        return
    with FullTextCosmos() as fake:
        settings = Settings(cosmos_endpoint=fake.endpoint, cosmos_key=KEY, cosmos_verify_tls=False)
        adapter = CosmosIndex(settings)
        adapter.fake = fake  # type: ignore[attr-defined]
        yield adapter


def chunks(collection_id: str, document_id: str, texts: list[str], page: int | None = None):
    return [
        Chunk(
            id=f"{document_id}-{n}",
            collection_id=collection_id,
            document_id=document_id,
            ordinal=n,
            title="Runbook",
            origin="runbook.pdf",
            heading_path=["Pumps"],
            page=page,
            text=text,
        )
        for n, text in enumerate(texts)
    ]


def test_search_finds_the_best_chunk_in_the_given_collections_only(index: Index) -> None:
    index.replace_document(
        "c1", "d1", chunks("c1", "d1", ["The pump seal was replaced.", "Valves."], 3)
    )
    index.replace_document("c2", "d2", chunks("c2", "d2", ["Another pump seal story."]))
    hits = index.search(["c1"], "When was the pump seal replaced?", 5)
    assert hits[0].chunk.id == "d1-0"
    assert {h.chunk.collection_id for h in hits} == {"c1"}
    assert (hits[0].chunk.page, hits[0].chunk.heading_path) == (3, ["Pumps"])
    both = index.search(["c1", "c2"], "pump seal", 5)
    assert {h.chunk.collection_id for h in both} == {"c1", "c2"}
    assert index.search(["c1"], "?!", 5) == []


def test_replacing_a_document_leaves_exactly_its_new_chunks(index: Index) -> None:
    index.replace_document("c1", "d1", chunks("c1", "d1", ["one", "two", "three"]))
    assert index.replace_document("c1", "d1", chunks("c1", "d1", ["uno", "dos"])) == 2
    assert index.replace_document("c1", "d1", chunks("c1", "d1", ["uno", "dos"])) == 2
    assert [c.text for c in index.document_chunks("c1", "d1")] == ["uno", "dos"]
    assert index.count("c1") == 2
    assert index.delete_document("c1", "d1") == 2
    index.replace_document("c1", "d3", chunks("c1", "d3", ["x"]))
    assert index.delete_collection("c1") == 1
    assert index.count("c1") == 0


def test_the_cosmos_query_is_the_documented_full_text_shape(tmp_path) -> None:
    with FullTextCosmos() as fake:
        settings = Settings(cosmos_endpoint=fake.endpoint, cosmos_key=KEY, cosmos_verify_tls=False)
        index = CosmosIndex(settings)
        index.search(["c1"], 'pump" OR seal', 7)
    [query] = [q for q in fake.queries if "FullText" in q]
    # twice the hits asked for: another generation's chunks are dropped after the query
    assert query.startswith("SELECT TOP 14 c.id, c.chunk_id, c.generation")
    assert query.endswith(
        'WHERE FullTextContainsAny(c.text, "pump", "or", "seal")'
        ' ORDER BY RANK FullTextScore(c.text, "pump", "or", "seal")'
    )


# -- hybrid search: the same adapters with chunk vectors and the query's embedding ---------


@pytest.fixture
def embedder() -> Iterator[OpenAIEmbeddings]:
    """The app's embeddings client against the OpenAI-protocol fake (hashed concepts)."""
    with FakeOpenAIServer() as server:
        settings = Settings(
            openai_base_url=server.base_url, openai_api_key="test", embedding_model="emb"
        )
        client = OpenAIEmbeddings(settings)
        client.server = server  # type: ignore[attr-defined]
        yield client


def _with_vectors(index: Index, embedder: OpenAIEmbeddings, cid: str, did: str, texts):
    index.replace_document(cid, did, chunks(cid, did, texts), embedder.embed(texts))


def test_a_query_sharing_no_word_finds_a_chunk_through_its_vector(
    index: Index, embedder: OpenAIEmbeddings
) -> None:
    hybrid = HybridIndex(index, embedder)
    texts = ["The pump seal was replaced in May.", "Valves were greased.", "Coffee is ready."]
    _with_vectors(index, embedder, "c1", "d1", texts)
    _with_vectors(index, embedder, "c2", "d2", ["The pump seal of the other plant."])
    question = "Who swapped an impeller gasket?"  # no word in common with any chunk

    assert index.search(["c1"], question, 5) == []  # words alone find nothing
    hits = hybrid.search(["c1"], question, 5)
    assert hits[0].chunk.id == "d1-0"
    assert {h.chunk.collection_id for h in hits} == {"c1"}
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert len([r for r in embedder.server.requests if r.path.endswith("/embeddings")]) == 3

    # replaced since (the SQLite index caches a collection's vectors): the new text counts
    _with_vectors(index, embedder, "c1", "d1", ["Coffee is ready.", "The gasket was fine."])
    assert [h.chunk.text for h in hybrid.search(["c1"], question, 1)] == ["The gasket was fine."]


def test_hybrid_keeps_the_lexical_best_and_stored_vectors_come_back(
    index: Index, embedder: OpenAIEmbeddings
) -> None:
    texts = ["pump seal pump seal", "A seal on a valve.", "Nothing related."]
    _with_vectors(index, embedder, "c1", "d1", texts)
    index.replace_document("c1", "d9", chunks("c1", "d9", ["A pump without a vector."]))

    hits = HybridIndex(index, embedder).search(["c1"], "pump seal", 5)
    assert hits[0].chunk.id == "d1-0"
    assert "d9-0" in {h.chunk.id for h in hits}  # found by its words, though it has no vector
    stored = index.vectors("c1", "d1")
    assert sorted(stored) == sorted(texts)
    assert stored[texts[0]] == pytest.approx(embedder.embed([texts[0]])[0], abs=1e-6)
    assert index.vectors("c1", "d9") == {}
    index.delete_document("c1", "d1")
    assert index.vectors("c1", "d1") == {}


def test_a_failing_embeddings_endpoint_leaves_the_lexical_result(
    index: Index, embedder: OpenAIEmbeddings
) -> None:
    _with_vectors(index, embedder, "c1", "d1", ["The pump seal was replaced.", "Valves."])
    embedder.server.enqueue(error(500))
    hits = HybridIndex(index, embedder).search(["c1"], "pump seal", 5)
    assert [h.chunk.id for h in hits] == [h.chunk.id for h in index.search(["c1"], "pump seal", 5)]


def test_the_cosmos_hybrid_query_is_the_documented_rrf_shape(embedder) -> None:
    with FullTextCosmos() as fake:
        settings = Settings(cosmos_endpoint=fake.endpoint, cosmos_key=KEY, cosmos_verify_tls=False)
        index = CosmosIndex(settings)
        index.search(["c1"], "pump seal", 7, vector=embedder.embed(["pump seal"])[0])
    [query] = [q for q in fake.queries if "RRF" in q]
    # twice the hits asked for: another generation's chunks are dropped after the query
    assert query.startswith("SELECT TOP 14 c.id, c.chunk_id, c.generation")
    assert query.endswith(
        ' FROM c ORDER BY RANK RRF(FullTextScore(c.text, "pump", "seal"),'
        " VectorDistance(c.embedding, @vector))"
    )
