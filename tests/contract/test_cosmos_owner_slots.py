"""Freeing an owner's quota slot on Cosmos DB, against the Cosmos DB stand-in.

What a person notices: a session that ends (or is deleted) gives its place back,
also a session stored by the version before sessions named their slot; and
ending a session costs no query (Cosmos bills queries by the request unit),
neither when it holds a slot nor when it holds none.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from azure.cosmos import CosmosClient

from shared.adapters.stores.cosmos import CosmosSessionStore
from shared.adapters.stores.quota import StartQuota
from shared.core.config import Settings
from shared.core.errors import QuotaExceeded
from shared.core.session_models import Mode, Owner, SessionRecord, SessionStatus
from tests.contract.test_session_store_contract import RUN_ID, new_session
from tests.contract.test_session_store_quotas import TODAY, person
from tests.emulators.fixtures import CosmosInfo, cosmos_standin  # noqa: F401

pytestmark = [
    pytest.mark.emulators,
    pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning"),
]
ONE_AT_A_TIME = StartQuota(day_start=TODAY, concurrent=1)


@pytest.fixture
def cosmos(cosmos_standin: CosmosInfo) -> Iterator[tuple[CosmosSessionStore, Any]]:  # noqa: F811
    """The store, and its container opened with a client of the test's own."""
    settings = Settings(
        cosmos_endpoint=cosmos_standin.endpoint,
        cosmos_key=cosmos_standin.key,
        cosmos_verify_tls=False,
        cosmos_database=f"contract-{RUN_ID}",
        cosmos_container=f"sessions-{uuid.uuid4().hex[:8]}",
    )
    store = CosmosSessionStore(settings)
    container = (
        CosmosClient(
            settings.cosmos_endpoint, credential=cosmos_standin.key, connection_verify=False
        )
        .get_database_client(settings.cosmos_database)
        .get_container_client(settings.cosmos_container)
    )
    yield store, container


def start(store: CosmosSessionStore, owner: Owner, mode: Mode = Mode.search) -> SessionRecord:
    return store.create(new_session(chat_id=f"chat-{uuid.uuid4().hex[:8]}", owner=owner, mode=mode))


def start_limited(store: CosmosSessionStore, owner: Owner) -> SessionRecord:
    chat = f"chat-{uuid.uuid4().hex[:8]}"
    return store.create(new_session(chat_id=chat, owner=owner, mode=Mode.search), ONE_AT_A_TIME)


def queries(store: CosmosSessionStore) -> int:
    return store.operation_counts().get("query", 0)


@pytest.mark.parametrize("end", ["completed", "deleted"])
def test_a_session_stored_before_sessions_named_their_slot_still_gives_it_back(
    cosmos: tuple[CosmosSessionStore, Any], end: str
) -> None:
    store, container = cosmos
    alice = person()
    first = start_limited(store, alice)
    # Rewrite the session as the earlier version stored it: no ``owner_slot``.
    doc = container.read_item(first.id, partition_key=first.chat_id)
    container.replace_item(first.id, {k: v for k, v in doc.items() if k != "owner_slot"})
    with pytest.raises(QuotaExceeded):
        start_limited(store, alice)

    if end == "deleted":
        store.delete(first.id)
    else:
        store.update(first.id, lambda r: setattr(r, "status", SessionStatus.completed))

    assert start_limited(store, alice).owner == alice


def test_a_session_with_a_slot_gives_it_back_without_a_query(
    cosmos: tuple[CosmosSessionStore, Any],
) -> None:
    store, container = cosmos
    alice = person()
    first = start_limited(store, alice)
    # Updates on the way keep the slot's name on the document.
    store.update(first.id, lambda r: setattr(r, "status", SessionStatus.researching))
    assert container.read_item(first.id, partition_key=first.chat_id)["owner_slot"] == "_slot-0"
    before = queries(store)

    store.update(first.id, lambda r: setattr(r, "status", SessionStatus.completed))

    assert queries(store) == before
    assert start_limited(store, alice).owner == alice


def test_ending_a_session_that_holds_no_slot_costs_no_query(
    cosmos: tuple[CosmosSessionStore, Any],
) -> None:
    store, container = cosmos
    finished, deleted = start(store, person()), start(store, person())
    assert container.read_item(finished.id, partition_key=finished.chat_id)["owner_slot"] is None
    before = queries(store)

    store.update(finished.id, lambda r: setattr(r, "status", SessionStatus.completed))
    assert queries(store) == before
    store.delete(deleted.id)
    # the chat messages and the answer chunks of the session, no slot query
    assert queries(store) == before + 2
