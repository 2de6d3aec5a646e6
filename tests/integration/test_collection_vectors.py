"""Ingestion with an embedding model: every chunk stored with its vector, once.

The real use cases and the SQLite index, the app's embeddings client against the
OpenAI-protocol fake over loopback HTTP (tests/fakes/fake_embeddings.py).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from shared.adapters.documents.collection_search import CollectionSearch
from shared.adapters.identity import system_principal
from shared.bootstrap import AppServices
from shared.core.collection_models import DocumentStatus, VectorState
from shared.core.config import Settings
from shared.usecases import collections as uc
from shared.usecases.ingestion import Upload, add_documents, ingest_document
from tests.fakes.openai_server import FakeOpenAIServer, error

RUNBOOK = (
    b"# Runbook\n\n## Pumps\n\nThe pump seal was replaced in May after the leak.\n\n"
    b"## Valves\n\nValves are greased every quarter by the night shift.\n"
)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def _services(tmp_path, server: FakeOpenAIServer, **more) -> AppServices:
    return AppServices(
        Settings(
            data_dir=tmp_path,
            openai_base_url=server.base_url,
            openai_api_key="test",
            embedding_model="text-embedding-3-small",
            **more,
        )
    )


def _embedding_calls(server: FakeOpenAIServer) -> list[list[str]]:
    return [r.json["input"] for r in server.requests if r.path.endswith("/embeddings")]


def _ingest(svc: AppServices, collection, name: str, data: bytes):
    [added] = add_documents(svc, collection, [Upload(name, data)])
    if not added.changed:
        return added.record
    return ingest_document(svc, collection.id, added.record.id)


def test_chunks_are_embedded_in_batches_once_and_found_by_meaning(tmp_path, server):
    svc = _services(tmp_path, server, embedding_batch_size=1)
    collection = uc.create_collection(svc, system_principal("vectors-test"), "plant")

    record = _ingest(svc, collection, "runbook.md", RUNBOOK)
    assert (record.status, record.vectors, record.vector_error) == (
        DocumentStatus.ingested,
        VectorState.stored,
        None,
    )
    calls = _embedding_calls(server)
    assert len(calls) == record.chunks >= 2  # a batch of one chunk per call
    assert len(svc.index.vectors(collection.id, record.id)) == record.chunks

    # the activity again (a retry, a resumed host): same chunks, no new embeddings call
    ingest_document(svc, collection.id, record.id)
    assert len(_embedding_calls(server)) == len(calls)
    assert svc.index.count(collection.id) == record.chunks

    search = CollectionSearch(svc.index, [collection.id])
    [best, *_] = search.search("Who swapped an impeller gasket?", 3)  # no word in common
    assert best.title.endswith("› Pumps")
    # one call per search, for the words the index is asked for (stopwords left out)
    assert _embedding_calls(server)[-1] == ["swapped impeller gasket"]


def test_a_changed_document_pays_only_for_its_changed_chunks(tmp_path, server):
    svc = _services(tmp_path, server)
    collection = uc.create_collection(svc, system_principal("vectors-test"), "plant")
    _ingest(svc, collection, "runbook.md", RUNBOOK)
    before = len(_embedding_calls(server))

    changed = RUNBOOK.replace(b"every quarter", b"every month")
    record = _ingest(svc, collection, "runbook.md", changed)

    new_calls = _embedding_calls(server)[before:]
    assert record.vectors == VectorState.stored
    assert [len(batch) for batch in new_calls] == [1]
    assert "every month" in new_calls[0][0]


def test_a_failing_endpoint_ingests_by_words_and_says_vectors_are_missing(tmp_path, server):
    svc = _services(tmp_path, server)
    collection = uc.create_collection(svc, system_principal("vectors-test"), "plant")
    server.enqueue(error(500))

    record = _ingest(svc, collection, "runbook.md", RUNBOOK)

    assert record.status == DocumentStatus.ingested and record.chunks >= 2
    assert record.vectors == VectorState.missing
    assert "embeddings call failed" in (record.vector_error or "")
    assert svc.index.vectors(collection.id, record.id) == {}
    assert svc.index.search([collection.id], "pump seal", 3)[0].chunk.text.startswith("The pump")

    again = _ingest(svc, collection, "runbook.md", RUNBOOK)  # the same file retries them
    assert (again.vectors, again.vector_error) == (VectorState.stored, None)
    assert len(svc.index.vectors(collection.id, record.id)) == record.chunks


def test_without_an_embedding_model_nothing_is_embedded_until_uploaded_again_with_one(
    tmp_path, server
):
    svc = AppServices(Settings(data_dir=tmp_path, openai_base_url=server.base_url))
    collection = uc.create_collection(svc, system_principal("vectors-test"), "plant")
    record = _ingest(svc, collection, "runbook.md", RUNBOOK)
    assert record.vectors == VectorState.off
    assert _ingest(svc, collection, "runbook.md", RUNBOOK).vectors == VectorState.off
    assert _embedding_calls(server) == []
    assert svc.index.search([collection.id], "Who swapped an impeller gasket?", 3) == []

    # EMBEDDING_MODEL set later: the same file uploaded again is embedded, once
    with_model = _services(tmp_path, server)
    assert _ingest(with_model, collection, "runbook.md", RUNBOOK).vectors == VectorState.stored
    [unchanged] = add_documents(with_model, collection, [Upload("runbook.md", RUNBOOK)])
    assert unchanged.unchanged
    assert with_model.index.search([collection.id], "Who swapped an impeller gasket?", 3)
