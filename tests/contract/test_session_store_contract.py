"""The SessionStore contract, run against SQLite and the Cosmos DB stand-in.

Every case here is a promise the HTTP API and the orchestrations rely on:
no lost update, at most one active deep research per chat even under a
burst of concurrent starts, a finished session frees its chat, newest-first
listings and a bounded, ordered chat history.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
from azure.cosmos import CosmosClient

from shared.adapters.stores.base import SessionStore
from shared.adapters.stores.cosmos import CosmosSessionStore
from shared.adapters.stores.sqlite import SqliteSessionStore
from shared.core.config import Settings
from shared.core.errors import (
    ActiveSessionConflict,
    ConflictError,
    InvalidInputError,
    NotFoundError,
)
from shared.core.report_models import SynthesizedAnswer
from shared.core.session_models import ChatMessage, Mode, SessionRecord, SessionStatus, Usage
from tests.emulators.fixtures import CosmosInfo, cosmos_standin  # noqa: F401

pytestmark = pytest.mark.filterwarnings(
    "ignore::urllib3.exceptions.InsecureRequestWarning"  # the stand-in's self-signed cert
)

RUN_ID = uuid.uuid4().hex[:8]
T0 = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", pytest.param("cosmos", marks=pytest.mark.emulators)])
def store(request: pytest.FixtureRequest, tmp_path) -> Iterator[SessionStore]:
    if request.param == "sqlite":
        sqlite = SqliteSessionStore(tmp_path / "nested" / "sessions.sqlite3")
        yield sqlite
        sqlite.close()
        return
    info: CosmosInfo = request.getfixturevalue("cosmos_standin")
    # Not closed: closing the client leaves its background health check logging errors.
    yield CosmosSessionStore(
        Settings(
            cosmos_endpoint=info.endpoint,
            cosmos_key=info.key,
            cosmos_verify_tls=False,
            cosmos_database=f"contract-{RUN_ID}",
            cosmos_container=f"sessions-{uuid.uuid4().hex[:8]}",
        )
    )


def new_session(
    chat_id: str = "chat-1",
    mode: Mode = Mode.deep_research,
    session_id: str | None = None,
    created_at: datetime = T0,
    **fields,
) -> SessionRecord:
    return SessionRecord(
        id=uuid.uuid4().hex if session_id is None else session_id,
        chat_id=chat_id,
        original_query=fields.pop("original_query", "Wie funktioniert Photosynthese?"),
        mode=mode,
        instance_id=fields.pop("instance_id", f"inst-{uuid.uuid4().hex[:6]}"),
        created_at=created_at,
        updated_at=created_at,
        **fields,
    )


def run_together(workers: int, job: Callable[[int], object]) -> list[object]:
    """Run ``job(i)`` on ``workers`` threads released at the same instant."""
    barrier = threading.Barrier(workers)

    def start(i: int) -> object:
        barrier.wait()
        try:
            return job(i)
        except Exception as exc:  # collected, the test inspects each outcome
            return exc

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(start, range(workers)))


# -- CRUD ----------------------------------------------------------------------------


def test_created_session_reads_back_with_every_field_and_an_etag(store: SessionStore) -> None:
    record = new_session(
        language="de",
        clarification_questions=["Welche Pflanzen?"],
        deep_search_result=SynthesizedAnswer(answer="Licht → Zucker 光合作用", key_points=["a"]),
        usage=Usage(llm_calls=3, prompt_tokens=120, completion_tokens=40, cost=0.0012),
        callback_url="https://example.org/hook",
    )
    created = store.create(record)
    loaded = store.get(record.id)

    assert created.etag and loaded.etag
    assert loaded.model_dump(exclude={"etag"}) == record.model_dump(exclude={"etag"})


def test_duplicate_session_id_is_a_conflict(store: SessionStore) -> None:
    record = new_session(mode=Mode.chat)
    store.create(record)
    with pytest.raises(ConflictError) as caught:
        store.create(record)
    assert not isinstance(caught.value, ActiveSessionConflict)


def test_unknown_session_is_not_found(store: SessionStore) -> None:
    with pytest.raises(NotFoundError):
        store.get("does-not-exist")
    with pytest.raises(NotFoundError):
        store.update("does-not-exist", lambda record: None)


@pytest.mark.parametrize("bad_id", ["../x", "a/b", "", "-leading-dash", "x\x00y", "a b", "é"])
def test_invalid_session_ids_are_refused(store: SessionStore, bad_id: str) -> None:
    with pytest.raises(InvalidInputError):
        store.create(new_session(session_id=bad_id, mode=Mode.chat))
    with pytest.raises(InvalidInputError):
        store.get(bad_id)


def test_update_saves_the_mutation_and_moves_the_etag(store: SessionStore) -> None:
    created = store.create(new_session())

    def mutate(record: SessionRecord) -> None:
        record.status = SessionStatus.waiting_clarification
        record.clarification_questions.append("Which region?")

    updated = store.update(created.id, mutate)
    loaded = store.get(created.id)

    assert loaded.status is SessionStatus.waiting_clarification
    assert loaded.clarification_questions == ["Which region?"]
    assert updated.etag == loaded.etag != created.etag
    assert loaded.updated_at > created.updated_at


def test_update_may_not_move_a_session_to_another_chat(store: SessionStore) -> None:
    created = store.create(new_session(mode=Mode.search))

    def move(record: SessionRecord) -> None:
        record.chat_id = "elsewhere"

    with pytest.raises(InvalidInputError):
        store.update(created.id, move)
    assert store.get(created.id).chat_id == created.chat_id


def test_concurrent_updates_of_different_fields_lose_nothing(store: SessionStore) -> None:
    created = store.create(new_session())
    rounds = 8

    def add_answer(i: int) -> None:
        for n in range(rounds):
            store.update(created.id, lambda r, n=n: r.clarification_answers.append(f"a{n}"))

    def count_call(i: int) -> None:
        for _ in range(rounds):
            store.update(created.id, lambda r: setattr(r.usage, "llm_calls", r.usage.llm_calls + 1))

    outcomes = run_together(2, lambda i: (add_answer, count_call)[i](i))

    assert outcomes == [None, None]
    loaded = store.get(created.id)
    assert loaded.clarification_answers == [f"a{n}" for n in range(rounds)]
    assert loaded.usage.llm_calls == rounds


# -- one active deep research per chat ---------------------------------------------------


def test_twenty_concurrent_deep_research_starts_let_exactly_one_through(
    store: SessionStore,
) -> None:
    chat = f"race-{uuid.uuid4().hex[:6]}"
    outcomes = run_together(20, lambda i: store.create(new_session(chat_id=chat)))

    winners = [o for o in outcomes if isinstance(o, SessionRecord)]
    refused = [o for o in outcomes if isinstance(o, ActiveSessionConflict)]
    assert len(winners) == 1, outcomes
    assert len(refused) == 19, outcomes
    assert {o.active_session_id for o in refused} <= {winners[0].id, None}
    assert store.active_deep_research(chat).id == winners[0].id
    assert len(store.list_by_chat(chat)) == 1


def test_deep_research_in_another_chat_or_another_mode_is_not_blocked(
    store: SessionStore,
) -> None:
    store.create(new_session(chat_id="chat-a"))
    store.create(new_session(chat_id="chat-b"))
    store.create(new_session(chat_id="chat-a", mode=Mode.search))

    with pytest.raises(ActiveSessionConflict):
        store.create(new_session(chat_id="chat-a"))


@pytest.mark.parametrize(
    "final", [SessionStatus.completed, SessionStatus.failed, SessionStatus.cancelled]
)
def test_a_finished_deep_research_frees_the_chat(store: SessionStore, final: SessionStatus) -> None:
    first = store.create(new_session())
    with pytest.raises(ActiveSessionConflict) as caught:
        store.create(new_session())
    assert caught.value.active_session_id == first.id

    store.update(first.id, lambda r: setattr(r, "status", final))

    assert store.active_deep_research("chat-1") is None
    second = store.create(new_session())
    assert store.active_deep_research("chat-1").id == second.id


def test_a_finished_session_cannot_be_reopened_while_another_is_active(
    store: SessionStore,
) -> None:
    first = store.create(new_session())
    store.update(first.id, lambda r: setattr(r, "status", SessionStatus.failed))
    second = store.create(new_session())

    with pytest.raises(ActiveSessionConflict):
        store.update(first.id, lambda r: setattr(r, "status", SessionStatus.active))
    assert store.get(first.id).status is SessionStatus.failed
    assert store.active_deep_research("chat-1").id == second.id


def test_supersede_marks_every_unfinished_session_of_the_chat_but_the_new_one(
    store: SessionStore,
) -> None:
    research = store.create(new_session())
    old_search = store.create(new_session(mode=Mode.search))
    done = store.create(new_session(mode=Mode.chat, status=SessionStatus.completed))
    other_chat = store.create(new_session(chat_id="chat-2"))
    new_search = store.create(new_session(mode=Mode.search))

    superseded = store.supersede_active("chat-1", except_id=new_search.id)

    assert sorted(r.id for r in superseded) == sorted([research.id, old_search.id])
    assert all(r.status is SessionStatus.superseded for r in superseded)
    assert store.get(research.id).status is SessionStatus.superseded
    assert store.get(done.id).status is SessionStatus.completed
    assert store.get(new_search.id).status is SessionStatus.active
    assert store.get(other_chat.id).status is SessionStatus.active
    assert store.supersede_active("chat-1", except_id=new_search.id) == []
    store.create(new_session())  # the deep research slot is free again


# -- listings and history ------------------------------------------------------------------


def test_sessions_of_a_chat_are_listed_newest_first_with_a_limit(store: SessionStore) -> None:
    ids = [
        store.create(
            new_session(mode=Mode.chat, created_at=T0 + timedelta(seconds=n, microseconds=n))
        ).id
        for n in range(5)
    ]
    store.create(new_session(chat_id="other", mode=Mode.chat))

    assert [r.id for r in store.list_by_chat("chat-1")] == ids[::-1]
    assert [r.id for r in store.list_by_chat("chat-1", limit=3)] == ids[:1:-1]
    assert store.list_by_chat("nobody") == []


def test_unfinished_sessions_of_every_chat_and_mode_are_listed_oldest_first(
    store: SessionStore,
) -> None:
    second = store.create(new_session(chat_id="chat-a", created_at=T0 + timedelta(seconds=1)))
    first = store.create(new_session(chat_id="chat-b", mode=Mode.search, created_at=T0))
    store.create(new_session(chat_id="chat-c", status=SessionStatus.completed))
    finished = store.create(new_session(chat_id="chat-d", created_at=T0 + timedelta(seconds=2)))
    store.update(finished.id, lambda r: setattr(r, "status", SessionStatus.cancelled))
    third = store.create(
        new_session(
            chat_id="chat-e",
            status=SessionStatus.waiting_clarification,
            created_at=T0 + timedelta(seconds=3),
        )
    )

    assert [r.id for r in store.list_active()] == [first.id, second.id, third.id]
    assert [r.id for r in store.list_active(limit=2)] == [first.id, second.id]
    assert store.list_active(limit=0) == []
    assert store.list_active()[2].status is SessionStatus.waiting_clarification


def test_chat_history_returns_the_last_messages_oldest_first(store: SessionStore) -> None:
    for n in range(12):
        role = "user" if n % 2 == 0 else "assistant"
        store.append_message("chat-h", ChatMessage(role=role, content=f"m{n} — привет"))
    store.append_message("chat-other", ChatMessage(role="user", content="elsewhere"))

    history = store.history("chat-h", 10)

    assert [m.content for m in history] == [f"m{n} — привет" for n in range(2, 12)]
    assert [m.role for m in history[:2]] == ["user", "assistant"]
    assert [m.content for m in store.history("chat-h", 3)] == [
        "m9 — привет",
        "m10 — привет",
        "m11 — привет",
    ]
    assert store.history("chat-empty", 10) == []
    assert store.history("chat-h", 0) == []


def test_ping_answers(store: SessionStore) -> None:
    store.ping()
    assert store.kind in {"sqlite", "cosmos"}


def test_a_repeated_create_of_the_active_session_keeps_its_slot(store: SessionStore) -> None:
    record = new_session()
    store.create(record)
    with pytest.raises(ConflictError):
        store.create(record)  # an activity that ran twice

    assert store.active_deep_research("chat-1").id == record.id
    with pytest.raises(ActiveSessionConflict):
        store.create(new_session())


# -- deletion and retention ----------------------------------------------------------


def test_delete_removes_the_session_its_messages_and_its_hold_on_the_chat(
    store: SessionStore,
) -> None:
    doomed = store.create(new_session())  # the chat's active deep research
    kept = store.create(new_session(mode=Mode.chat, created_at=T0 + timedelta(seconds=1)))
    for session_id, text in ((doomed.id, "secret question"), (kept.id, "kept question")):
        store.append_message(
            "chat-1", ChatMessage(role="user", content=text, session_id=session_id)
        )

    store.delete(doomed.id)
    store.delete(doomed.id)  # a retried delete is not an error

    with pytest.raises(NotFoundError):
        store.get(doomed.id)
    assert [r.id for r in store.list_by_chat("chat-1")] == [kept.id]
    assert [m.content for m in store.history("chat-1", 10)] == ["kept question"]
    assert store.active_deep_research("chat-1") is None
    store.create(new_session())  # the slot is free for a new deep research


def aged(store: SessionStore, record: SessionRecord, status: SessionStatus, days: int):
    """Store ``record`` with ``status``, last touched ``days`` after T0."""

    def touch(r: SessionRecord) -> None:
        r.status, r.updated_at = status, T0 + timedelta(days=days)

    return store.update(store.create(record).id, touch)


def test_retention_lists_finished_sessions_by_last_activity_across_chats(
    store: SessionStore,
) -> None:
    idle = {
        aged(store, new_session(chat_id=f"chat-{n}", mode=Mode.search), status, 1).id
        for n, status in enumerate((SessionStatus.completed, SessionStatus.failed))
    }
    # Created as long ago, but touched since (a follow-up, a redelivery): not idle.
    aged(store, new_session(chat_id="chat-busy", mode=Mode.chat), SessionStatus.completed, 35)
    # Waiting for its user since long ago: never listed, however old.
    for n, waiting in enumerate(
        (SessionStatus.waiting_clarification, SessionStatus.waiting_plan_approval)
    ):
        aged(store, new_session(chat_id=f"chat-wait-{n}"), waiting, 1)
    aged(store, new_session(chat_id="chat-run", mode=Mode.search), SessionStatus.active, 1)

    cutoff = T0 + timedelta(days=30)
    assert {r.id for r in store.list_idle_before(cutoff)} == idle
    assert len(store.list_idle_before(cutoff, limit=1)) == 1
    assert store.list_idle_before(T0) == []
    assert store.list_idle_before(cutoff, limit=0) == []


@pytest.mark.emulators
def test_cosmos_documents_from_before_updated_ts_go_by_their_updated_at(
    cosmos_standin: CosmosInfo,  # noqa: F811
) -> None:
    """A document written by an earlier version has no ``updated_ts``: its ``updated_at`` counts."""
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
    ids = {}
    for name, idle_days in (("idle", 1), ("used", 35)):
        record = new_session(chat_id=f"chat-{name}", mode=Mode.search)
        record.status, record.updated_at = SessionStatus.completed, T0 + timedelta(days=idle_days)
        doc = record.model_dump(mode="json", exclude={"etag"})
        container.create_item(doc | {"type": "session", "created_ts": T0.timestamp()})
        ids[name] = record.id

    assert [r.id for r in store.list_idle_before(T0 + timedelta(days=30))] == [ids["idle"]]
