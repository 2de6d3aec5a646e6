"""Listings of collections and watches: the caller's own, including those made before
ids carried their owner's tag, never anyone else's."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from shared.adapters.identity import system_principal
from shared.bootstrap import AppServices
from shared.core.collection_models import Collection
from shared.core.config import Settings
from shared.usecases import collections as uc
from shared.usecases import watches
from shared.usecases.owned_ids import owner_tag


def test_collections_made_before_ids_carried_a_tag_are_still_listed_for_their_owner(tmp_path):
    svc = AppServices(Settings(data_dir=tmp_path))
    alice, bob = system_principal("alice"), system_principal("bob")
    now = datetime.now(UTC)
    old = Collection(
        id=uuid.uuid4().hex, name="old", owner=alice.owner, created_at=now, updated_at=now
    )
    uc.save_collection(svc, old)
    new = uc.create_collection(svc, alice, "new")
    uc.create_collection(svc, bob, "bobs")
    assert new.id.startswith(owner_tag(alice.owner) + "-")
    assert [c.name for c in uc.own_collections(svc, alice)] == ["new", "old"]
    assert [c.name for c in uc.own_collections(svc, bob)] == ["bobs"]


def test_watches_are_listed_for_their_owner_only(tmp_path):
    svc = AppServices(Settings(data_dir=tmp_path))
    alice, bob = system_principal("alice"), system_principal("bob")
    mine = watches.create(svc, alice, "What changed in Python?", "search", "@daily", None)
    watches.create(svc, bob, "What changed in Rust?", "search", "@daily", None)
    assert [w.id for w in watches.list_for(svc, alice)] == [mine.id]
