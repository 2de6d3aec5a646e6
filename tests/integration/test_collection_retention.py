"""Retention covers collections: unchanged past SESSION_RETENTION_DAYS, they go with everything."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from shared.adapters.identity import system_principal
from shared.bootstrap import AppServices
from shared.core.config import Settings
from shared.usecases import collections as uc
from shared.usecases.ingestion import Upload, add_documents, ingest_document


def test_an_idle_collection_is_purged_with_its_chunks_and_a_recent_one_stays(tmp_path):
    svc = AppServices(Settings(data_dir=tmp_path, session_retention_days=30))
    owner = system_principal("retention-test")
    old, recent = (uc.create_collection(svc, owner, name) for name in ("old", "recent"))
    for collection in (old, recent):
        [added] = add_documents(svc, collection, [Upload("a.md", b"# A\n\nretained text")])
        ingest_document(svc, collection.id, added.record.id)
    stale = uc.collection_for(svc, owner, old.id, "act")
    long_ago = datetime.now(UTC) - timedelta(days=31)
    uc.save_collection(svc, stale.model_copy(update={"updated_at": long_ago}))

    assert uc.purge_expired_collections(svc, datetime.now(UTC)) == [old.id]
    assert [c.id for c in uc.list_collections(svc, owner)] == [recent.id]
    assert svc.index.count(old.id) == 0
    assert svc.collection_files.list(old.id) == []
    assert svc.index.count(recent.id) == 1


def test_without_the_setting_nothing_is_purged(tmp_path):
    svc = AppServices(Settings(data_dir=tmp_path))
    owner = system_principal("retention-test")
    collection = uc.create_collection(svc, owner, "kept")
    far_future = datetime.now(UTC) + timedelta(days=3650)
    assert uc.purge_expired_collections(svc, far_future) == []
    assert [c.id for c in uc.list_collections(svc, owner)] == [collection.id]
