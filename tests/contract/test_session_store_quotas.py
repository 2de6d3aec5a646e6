"""The SessionStore's quota promises, against SQLite and the Cosmos DB stand-in.

What a person notices: a burst of starts gets exactly as many sessions as the
quota allows, a session that ends gives its place back, deleting sessions
gives back neither the day's starts nor the day's spend, and a start the
store refused for another reason does not count.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest

from shared.adapters.stores.base import SessionStore
from shared.adapters.stores.quota import PER_DAY_SETTING, StartQuota, day_start
from shared.core.errors import ActiveSessionConflict, QuotaExceeded
from shared.core.session_models import Mode, Owner, SessionRecord, SessionStatus, Usage
from tests.contract import test_session_store_contract as contract
from tests.contract.test_session_store_contract import T0, new_session, run_together
from tests.emulators.fixtures import cosmos_standin  # noqa: F401

pytestmark = pytest.mark.filterwarnings(
    "ignore::urllib3.exceptions.InsecureRequestWarning"  # the stand-in's self-signed cert
)

TODAY = day_start(T0)
store = contract.store  # the same fixture: both real stores, built as the contract builds them


def person() -> Owner:
    return Owner(id=f"p-{uuid.uuid4().hex[:8]}", tenant="contoso")


def start(store: SessionStore, owner: Owner, quota: StartQuota, **fields) -> SessionRecord:
    chat = fields.pop("chat_id", f"chat-{uuid.uuid4().hex[:8]}")
    return store.create(new_session(chat_id=chat, owner=owner, **fields), quota)


def test_twenty_concurrent_starts_of_one_person_get_exactly_the_concurrent_quota(
    store: SessionStore,
) -> None:
    alice, bob = person(), person()
    quota = StartQuota(day_start=TODAY, concurrent=3)
    modes = [Mode.deep_research, Mode.chat, Mode.search, Mode.deep_search]

    outcomes = run_together(20, lambda i: start(store, alice, quota, mode=modes[i % 4]))

    winners = [o for o in outcomes if isinstance(o, SessionRecord)]
    refused = [o for o in outcomes if isinstance(o, QuotaExceeded)]
    assert len(winners) == 3, outcomes
    assert len(refused) == 17, outcomes
    assert {(r.quota, r.limit, r.used) for r in refused} == {
        ("QUOTA_CONCURRENT_SESSIONS_PER_OWNER", 3, 3)
    }
    assert all(r.retry_after > 0 and r.frees_at is None for r in refused)
    # Another person is not held to Alice's count.
    assert start(store, bob, quota).owner == bob


@pytest.mark.parametrize(
    "final",
    [SessionStatus.completed, SessionStatus.failed, SessionStatus.cancelled, "superseded"],
)
def test_a_session_that_ends_gives_its_place_back(store: SessionStore, final) -> None:
    alice = person()
    quota = StartQuota(day_start=TODAY, concurrent=2)
    first = start(store, alice, quota, mode=Mode.chat)
    start(store, alice, quota, mode=Mode.deep_research)
    with pytest.raises(QuotaExceeded):
        start(store, alice, quota)

    if final == "superseded":
        store.supersede_active(first.chat_id)
    else:
        store.update(first.id, lambda r: setattr(r, "status", final))

    assert start(store, alice, quota).owner == alice
    with pytest.raises(QuotaExceeded):
        start(store, alice, quota)


def test_a_deleted_session_gives_its_place_back(store: SessionStore) -> None:
    alice = person()
    quota = StartQuota(day_start=TODAY, concurrent=1)
    first = start(store, alice, quota)
    with pytest.raises(QuotaExceeded):
        start(store, alice, quota)

    store.delete(first.id)

    assert start(store, alice, quota).owner == alice


def test_starts_per_day_survive_deletes_and_start_over_the_next_day(store: SessionStore) -> None:
    alice = person()
    quota = StartQuota(day_start=TODAY, per_day=2)
    started = [start(store, alice, quota, mode=Mode.chat) for _ in range(2)]
    for record in started:
        store.delete(record.id)

    with pytest.raises(QuotaExceeded) as caught:
        start(store, alice, quota)

    refused = caught.value
    assert (refused.quota, refused.limit, refused.used) == (PER_DAY_SETTING, 2, 2)
    assert refused.frees_at == TODAY + timedelta(days=1)
    tomorrow = StartQuota(day_start=TODAY + timedelta(days=1), per_day=2)
    assert start(store, alice, tomorrow, created_at=T0 + timedelta(days=1)).owner == alice


def test_concurrent_starts_never_pass_the_day_quota(store: SessionStore) -> None:
    alice = person()
    quota = StartQuota(day_start=TODAY, per_day=4)

    outcomes = run_together(10, lambda i: start(store, alice, quota, mode=Mode.chat))

    assert sum(isinstance(o, SessionRecord) for o in outcomes) == 4, outcomes
    assert sum(isinstance(o, QuotaExceeded) for o in outcomes) == 6, outcomes


def test_a_start_refused_for_its_chat_does_not_count(store: SessionStore) -> None:
    alice = person()
    chat = f"busy-{uuid.uuid4().hex[:6]}"
    store.create(new_session(chat_id=chat, owner=person()))  # someone holds the chat's slot
    quota = StartQuota(day_start=TODAY, concurrent=1, per_day=1)

    with pytest.raises(ActiveSessionConflict):
        start(store, alice, quota, chat_id=chat)

    assert start(store, alice, quota).owner == alice


def test_spend_today_counts_the_persons_sessions_of_the_day_and_keeps_deleted_spend(
    store: SessionStore,
) -> None:
    alice, bob = person(), person()
    spend = Usage(llm_calls=2, prompt_tokens=1000, completion_tokens=200, cost=0.25)
    kept = store.create(new_session(owner=alice, chat_id="a1", usage=spend))
    gone = store.create(new_session(owner=alice, chat_id="a2", mode=Mode.chat))
    store.update(gone.id, lambda r: setattr(r, "usage", spend))
    store.create(new_session(owner=alice, chat_id="a3", usage=spend, created_at=T0 - timedelta(1)))
    store.create(new_session(owner=bob, chat_id="b1", usage=spend))

    store.delete(gone.id)
    spent = store.spent_today(alice, TODAY)

    assert (spent.total_tokens, spent.cost, spent.llm_calls) == (2400, 0.5, 4)
    assert store.get(kept.id).usage == spend
    assert store.spent_today(person(), TODAY) == Usage()
