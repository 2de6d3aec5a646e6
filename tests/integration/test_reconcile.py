"""Reconciling sessions with their orchestrations, on SQLite and the Cosmos stand-in.

The Durable side is a table of runtime statuses handed in as the callable the
reconciler takes (the same shape the HTTP layer builds from the Durable
client); the stores are real.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from shared.adapters.stores.base import SessionStore
from shared.core.errors import ActiveSessionConflict
from shared.core.session_models import Mode, SessionRecord, SessionStatus
from shared.usecases.reconcile import ENDED_SILENTLY, NEVER_STARTED, close_orphan_in_chat, sweep
from tests.contract import test_session_store_contract as contract
from tests.emulators.fixtures import cosmos_standin  # noqa: F401

pytestmark = pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")
LONG_AGO = timedelta(minutes=10)
store = contract.store  # the same fixture: both real stores, built as the contract builds them


def add(
    store: SessionStore,
    chat_id: str,
    age: timedelta = LONG_AGO,
    mode: Mode = Mode.deep_research,
    status: SessionStatus = SessionStatus.active,
) -> SessionRecord:
    created = datetime.now(UTC) - age
    session_id = uuid.uuid4().hex
    return store.create(
        SessionRecord(
            id=session_id,
            chat_id=chat_id,
            original_query="python",
            mode=mode,
            status=status,
            instance_id=session_id,
            created_at=created,
            updated_at=created,
        )
    )


def durable(statuses: dict[str, str]):
    async def runtime_status_of(instance_id: str) -> str | None:
        return statuses.get(instance_id)

    return runtime_status_of


def test_the_sweep_fails_orphans_only_and_frees_their_chats(store: SessionStore) -> None:
    never_started = add(store, "chat-1")
    completed_silently = add(store, "chat-2", status=SessionStatus.researching)
    terminated_search = add(store, "chat-3", mode=Mode.search)
    running = add(store, "chat-4", status=SessionStatus.waiting_clarification)
    pending = add(store, "chat-5")
    being_started = add(store, "chat-6", age=timedelta(0))
    done = add(store, "chat-7", status=SessionStatus.completed)
    runtime = {
        completed_silently.instance_id: "Completed",
        terminated_search.instance_id: "Terminated",
        running.instance_id: "Running",
        pending.instance_id: "Pending",
        done.instance_id: "Completed",
    }

    closed = asyncio.run(sweep(store, durable(runtime)))

    assert sorted(r.id for r in closed) == sorted(
        [never_started.id, completed_silently.id, terminated_search.id]
    )
    assert store.get(never_started.id).error == NEVER_STARTED
    assert store.get(completed_silently.id).error == ENDED_SILENTLY.format(runtime="Completed")
    assert store.get(terminated_search.id).status is SessionStatus.failed
    for kept in (running, pending, being_started):
        assert store.get(kept.id).status is kept.status
    assert store.get(done.id).error is None
    add(store, "chat-1", age=timedelta(0))  # the slots are free again
    add(store, "chat-2", age=timedelta(0))
    with pytest.raises(ActiveSessionConflict):
        add(store, "chat-4", age=timedelta(0))
    assert asyncio.run(sweep(store, durable(runtime))) == []  # idempotent


def test_a_chat_whose_holder_runs_is_not_freed(store: SessionStore) -> None:
    holder = add(store, "chat-run")

    closed = asyncio.run(close_orphan_in_chat(store, "chat-run", durable({holder.id: "Running"})))

    assert closed is None
    assert store.active_deep_research("chat-run").id == holder.id


def test_an_outcome_recorded_while_reconciling_wins(store: SessionStore) -> None:
    holder = add(store, "chat-late", status=SessionStatus.researching)

    async def finishes_meanwhile(instance_id: str) -> str | None:
        # The last activity records the outcome just as the status is read.
        store.update(holder.id, lambda r: setattr(r, "status", SessionStatus.completed))
        return "Completed"

    closed = asyncio.run(close_orphan_in_chat(store, "chat-late", finishes_meanwhile))

    assert closed is None
    assert store.get(holder.id).status is SessionStatus.completed
    assert store.get(holder.id).error is None
