"""A collection delete stopped half way (the process gone between two store calls) is
finished: by its owner deleting again, or by the next retention run. Nobody else may.

The stop is a real filesystem store whose ``delete_session`` fails once, in the test's
own services; the code under test is not touched."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from shared.adapters.identity import system_principal
from shared.adapters.stores.filesystem import FilesystemMemoryStore
from shared.bootstrap import AppServices
from shared.core.config import Settings
from shared.core.errors import NotFoundError
from shared.usecases import collections as uc
from shared.usecases.ingestion import Upload, add_documents, ingest_document
from tests.integration.test_collection_retention import NO_INSTANCES


class Crash(Exception):
    """The process stopping between two steps of a delete."""


class StopsBeforeDeletingFiles(FilesystemMemoryStore):
    """The real store; its first ``delete_session`` fails as a stopped process would."""

    stopped = False

    def delete_session(self, session_id: str) -> int:
        if not self.stopped:
            self.stopped = True
            raise Crash
        return super().delete_session(session_id)


def half_deleted(tmp_path, retention_days: int | None = None):
    """Services, the owner and a collection whose delete stopped after ``collection.json``
    went but before its record and original did."""
    svc = AppServices(Settings(data_dir=tmp_path, session_retention_days=retention_days))
    svc.collection_files = StopsBeforeDeletingFiles(tmp_path / "collections")
    owner = system_principal("half-deleted")
    collection = uc.create_collection(svc, owner, "manuals")
    [added] = add_documents(svc, collection, [Upload("pump.md", b"# Pump\n\nSeal check.")])
    ingest_document(svc, collection.id, added.record.id)
    with pytest.raises(Crash):
        uc.delete_collection(svc, collection.id)
    left = svc.collection_files.list(collection.id)
    assert uc.COLLECTION_FILE not in left and f"originals/{added.record.id}" in left
    return svc, owner, collection.id


def test_the_owner_deleting_again_finishes_a_delete_stopped_half_way(tmp_path):
    svc, owner, collection_id = half_deleted(tmp_path)
    with pytest.raises(NotFoundError):  # no longer a collection to read
        uc.collection_for(svc, owner, collection_id, "act")

    stranger = system_principal("someone-else")
    with pytest.raises(NotFoundError):
        uc.collection_to_delete(svc, stranger, collection_id)
    assert svc.collection_files.list(collection_id) != []

    assert uc.collection_to_delete(svc, owner, collection_id) == collection_id
    asyncio.run(uc.purge_collection(svc, NO_INSTANCES, collection_id))
    assert svc.collection_files.list(collection_id) == []
    assert svc.index.count(collection_id) == 0
    with pytest.raises(NotFoundError):  # and now it is gone for good
        uc.collection_to_delete(svc, owner, collection_id)


@pytest.mark.parametrize("retention_days", [None, 30])
def test_retention_finishes_a_delete_stopped_half_way(tmp_path, retention_days: int | None):
    svc, owner, collection_id = half_deleted(tmp_path, retention_days)
    kept = uc.create_collection(svc, owner, "kept")

    purged = asyncio.run(uc.purge_expired_collections(svc, NO_INSTANCES, datetime.now(UTC)))

    assert purged == [collection_id]
    assert svc.collection_files.list(collection_id) == []
    assert [c.id for c in uc.own_collections(svc, owner)] == [kept.id]
