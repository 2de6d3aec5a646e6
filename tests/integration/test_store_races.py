"""Races and failures at the stores' edges, against the real thing.

- Cosmos (stand-in behind a TCP proxy): a create whose answer never arrives,
  whether the write landed or not, keeps the chat's one-active lock and leaves
  exactly one session.
- Filesystem memory: processes appending to one file at once lose no entry.
- SQLite: only "busy/locked" is transient; other failures are permanent.
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from shared.adapters.stores.base import entry_marker
from shared.adapters.stores.cosmos import CosmosSessionStore
from shared.adapters.stores.filesystem import FilesystemMemoryStore
from shared.adapters.stores.sqlite import SqliteSessionStore
from shared.core.config import Settings
from shared.core.errors import ActiveSessionConflict, PermanentError, TransientError
from shared.core.session_models import Mode, SessionRecord
from tests.emulators.fixtures import CosmosInfo, cosmos_standin  # noqa: F401
from tests.fakes.holding_proxy import HoldingProxy

# Long enough to outlast a busy machine's ordinary request, short enough for a test.
CLIENT_READ_TIMEOUT_S = 2.0
BIG_QUERY = "Wie funktioniert Photosynthese? " * 1000  # ≈ 32 KB: only the session create is big
BIG_REQUEST_BYTES = 16_000


def session(chat_id: str, query: str = "python") -> SessionRecord:
    now = datetime.now(UTC)
    session_id = uuid.uuid4().hex
    return SessionRecord(
        id=session_id,
        chat_id=chat_id,
        original_query=query,
        mode=Mode.deep_research,
        instance_id=session_id,
        created_at=now,
        updated_at=now,
    )


# -- Cosmos: a create that times out -----------------------------------------------------


@pytest.fixture
def proxy(cosmos_standin: CosmosInfo) -> Iterator[HoldingProxy]:  # noqa: F811
    holding = HoldingProxy(urlsplit(cosmos_standin.endpoint).port)
    yield holding
    holding.close()


@pytest.fixture
def cosmos_pair(
    cosmos_standin: CosmosInfo,  # noqa: F811
    proxy: HoldingProxy,
) -> tuple[CosmosSessionStore, CosmosSessionStore]:
    """(through the proxy with a short read timeout, direct): one container, two clients."""
    names = {
        "cosmos_database": f"races-{uuid.uuid4().hex[:8]}",
        "cosmos_container": "sessions",
        "cosmos_key": cosmos_standin.key,
        "cosmos_verify_tls": False,
    }
    proxied = CosmosSessionStore(
        Settings(cosmos_endpoint=f"https://127.0.0.1:{proxy.port}/", **names),
        client_options={"read_timeout": CLIENT_READ_TIMEOUT_S, "enable_endpoint_discovery": False},
    )
    direct = CosmosSessionStore(Settings(cosmos_endpoint=cosmos_standin.endpoint, **names))
    return proxied, direct


pytestmark = pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")


@pytest.mark.emulators
@pytest.mark.parametrize("action", ["hold", "drop"])
def test_a_timed_out_create_keeps_the_chat_locked_and_leaves_one_session(
    cosmos_pair: tuple[CosmosSessionStore, CosmosSessionStore], proxy: HoldingProxy, action: str
) -> None:
    proxied, direct = cosmos_pair
    chat = f"timeout-{action}"
    record = session(chat, BIG_QUERY)
    proxy.arm(action, BIG_REQUEST_BYTES)

    created = proxied.create(record)

    assert proxy.triggered.is_set(), "the session create never went through the proxy"
    assert proxy.landed.is_set() == (action == "hold")
    assert created.id == record.id
    with pytest.raises(ActiveSessionConflict) as caught:
        direct.create(session(chat))
    assert caught.value.active_session_id == record.id
    assert [s.id for s in direct.list_by_chat(chat)] == [record.id]
    assert direct.active_deep_research(chat).id == record.id


# -- Filesystem memory: appends from several processes -------------------------------------

PROCESSES, APPENDS_EACH = 4, 40
SESSION = "sess-procs"


def append_many(root: str, worker: int, barrier) -> None:
    """One process's share: its own store object on the shared folder, as a worker has."""
    store = FilesystemMemoryStore(Path(root))
    barrier.wait(60)
    for n in range(APPENDS_EACH):
        store.append(SESSION, "draft_report.md", f"p{worker}-{n}", line(worker, n))


def line(worker: int, n: int) -> str:
    return f"finding {worker}.{n} " + "x" * 300


def test_processes_appending_to_one_file_lose_no_entry_and_never_interleave(
    tmp_path: Path,
) -> None:
    spawn = multiprocessing.get_context("spawn")
    barrier = spawn.Barrier(PROCESSES)
    workers = [
        spawn.Process(target=append_many, args=(str(tmp_path), worker, barrier))
        for worker in range(PROCESSES)
    ]
    for process in workers:
        process.start()
    for process in workers:
        process.join(120)
    assert [p.exitcode for p in workers] == [0] * PROCESSES

    lines = (tmp_path / SESSION / "draft_report.md").read_text(encoding="utf-8").splitlines()
    pairs = list(zip(lines[::2], lines[1::2], strict=True))
    expected = {
        (entry_marker(f"p{worker}-{n}"), line(worker, n))
        for worker in range(PROCESSES)
        for n in range(APPENDS_EACH)
    }
    assert len(pairs) == len(expected)  # none lost, none twice
    assert set(pairs) == expected  # each marker directly followed by its own intact line
    assert FilesystemMemoryStore(tmp_path).list(SESSION) == ["draft_report.md"]


# -- SQLite: which failures are worth a retry ------------------------------------------------


def test_sqlite_busy_beyond_the_timeout_is_transient_and_passes(tmp_path: Path) -> None:
    path = tmp_path / "sessions.sqlite3"
    store = SqliteSessionStore(path, busy_timeout_ms=50)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another process holds the write lock
    try:
        with pytest.raises(TransientError) as caught:
            store.create(session("busy-chat"))
        assert caught.value.__cause__.sqlite_errorname == "SQLITE_BUSY"
    finally:
        other.execute("ROLLBACK")
        other.close()

    created = store.create(session("busy-chat"))
    assert store.get(created.id).chat_id == "busy-chat"
    store.close()


def test_other_sqlite_failures_are_permanent(tmp_path: Path) -> None:
    path = tmp_path / "sessions.sqlite3"
    store = SqliteSessionStore(path)
    created = store.create(session("damaged-chat"))
    with sqlite3.connect(path, isolation_level=None) as other:
        other.execute("DROP TABLE sessions")  # a damaged database: no retry brings it back
    other.close()

    with pytest.raises(PermanentError) as caught:
        store.get(created.id)
    assert caught.value.__cause__.sqlite_errorname == "SQLITE_ERROR"
    store.close()


def test_stores_opening_a_new_file_at_once_all_open_it(tmp_path: Path) -> None:
    """Several workers (or a tool beside devhost) open a fresh SQLite file together: one
    switches it to WAL while the others read, and none of them fails (CI caught a
    "database is locked" here)."""

    def open_store(path: Path, errors: list[Exception]) -> None:
        try:
            SqliteSessionStore(path).close()
        except Exception as exc:  # collected: the assertion below names it
            errors.append(exc)

    for round_ in range(50):
        path = tmp_path / f"round-{round_}" / "sessions.sqlite3"
        errors: list[Exception] = []
        threads = [threading.Thread(target=open_store, args=(path, errors)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == [], f"round {round_}: {errors}"
