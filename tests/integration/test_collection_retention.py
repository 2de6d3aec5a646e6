"""Retention covers collections (unchanged past SESSION_RETENTION_DAYS, they go with
everything), and their files live in Blob storage apart from the sessions' (Azurite)."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from azure.storage.blob import BlobServiceClient
from pydantic import SecretStr

from shared.adapters.identity import system_principal
from shared.bootstrap import AppServices
from shared.core.config import Settings
from shared.usecases import collections as uc
from shared.usecases.ingestion import Upload, add_documents, ingest_document
from tests.emulators.fixtures import AzuriteInfo, azurite  # noqa: F401


class NoInstances:
    """``Instances`` of a host that ran no ingestion orchestration."""

    async def ids_with_prefix(self, prefix: str) -> list[str]:
        return []


NO_INSTANCES = NoInstances()


def test_an_idle_collection_is_purged_with_its_chunks_and_a_recent_one_stays(data_dir):
    svc = AppServices(Settings(data_dir=data_dir, session_retention_days=30))
    owner = system_principal("retention-test")
    old, recent = (uc.create_collection(svc, owner, name) for name in ("old", "recent"))
    for collection in (old, recent):
        [added] = add_documents(svc, collection, [Upload("a.md", b"# A\n\nretained text")])
        ingest_document(svc, collection.id, added.record.id)
    stale = uc.collection_for(svc, owner, old.id, "act")
    long_ago = datetime.now(UTC) - timedelta(days=31)
    uc.save_collection(svc, stale.model_copy(update={"updated_at": long_ago}))

    assert asyncio.run(uc.purge_expired_collections(svc, NO_INSTANCES, datetime.now(UTC))) == [
        old.id
    ]
    assert [c.id for c in uc.list_collections(svc, owner) if not c.built_in] == [recent.id]
    assert svc.index.count(old.id) == 0
    assert svc.collection_files.list(old.id) == []
    assert svc.index.count(recent.id) == 1


def test_without_the_setting_nothing_is_purged(data_dir):
    svc = AppServices(Settings(data_dir=data_dir))
    owner = system_principal("retention-test")
    collection = uc.create_collection(svc, owner, "kept")
    far_future = datetime.now(UTC) + timedelta(days=3650)
    assert asyncio.run(uc.purge_expired_collections(svc, NO_INSTANCES, far_future)) == []
    listed = uc.list_collections(svc, owner)
    assert [c.id for c in listed] == [svc.builtin_collection_id, collection.id]


@pytest.mark.emulators
def test_originals_live_in_their_own_blob_container_and_go_with_the_collection(
    tmp_path,
    azurite: AzuriteInfo,  # noqa: F811
):
    """With Blob storage (Azurite), a collection's records and originals are blobs of the
    COLLECTIONS_CONTAINER, apart from the sessions' memory container."""
    container = f"collections-{uuid.uuid4().hex[:12]}"
    settings = Settings(
        data_dir=tmp_path,
        azure_storage_connection_string=SecretStr(azurite.connection_string),
        memory_container=f"memory-{uuid.uuid4().hex[:12]}",
        collections_container=container,
    )
    svc = AppServices(settings)
    owner = system_principal("blob-test")
    collection = uc.create_collection(svc, owner, "blobbed")
    [added] = add_documents(svc, collection, [Upload("a.md", b"# A\n\nkept in a blob")])
    ingest_document(svc, collection.id, added.record.id)

    service = BlobServiceClient.from_connection_string(azurite.connection_string)
    blobs = service.get_container_client(container).list_blobs(collection.id)
    names = sorted(b.name.removeprefix(f"{collection.id}/") for b in blobs)
    assert names == [
        "collection.json",
        f"documents/{added.record.id}.json",
        f"originals/{added.record.id}",
    ]
    assert svc.collection_files.read(collection.id, f"originals/{added.record.id}") == (
        b"# A\n\nkept in a blob"
    )
    assert svc.memory.folders() == []  # nothing in the sessions' container
    uc.delete_collection(svc, collection.id)
    assert list(service.get_container_client(container).list_blobs(collection.id)) == []
