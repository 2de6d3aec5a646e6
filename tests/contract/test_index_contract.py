"""Both adapters of the documents Index: SQLite FTS5, and Cosmos DB full-text search over
HTTP against a gateway fake that checks the documented query shape
(tests/fakes/cosmos_fulltext.py; Cosmos DB has no local emulator of full-text search)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from shared.adapters.documents.base import Index
from shared.adapters.documents.cosmos_index import CosmosIndex
from shared.adapters.documents.fts import SqliteIndex
from shared.core.collection_models import Chunk
from shared.core.config import Settings
from tests.fakes.cosmos_fulltext import FullTextCosmos

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
    assert query.startswith("SELECT TOP 7 c.id, c.collection_id")
    assert query.endswith(
        'WHERE FullTextContainsAny(c.text, "pump", "or", "seal")'
        ' ORDER BY RANK FullTextScore(c.text, "pump", "or", "seal")'
    )
