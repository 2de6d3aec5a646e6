"""SessionStore on an embedded SQLite file (stdlib ``sqlite3``): the local default.

The session document is kept whole as JSON; the columns beside it exist only
for the guarantees of the port:

- ``version`` is the ETag: ``update`` writes ``WHERE id=? AND version=?`` and a
  lost race reloads, re-applies the mutation and tries again;
- a partial UNIQUE index on ``chat_id`` over active deep research sessions makes
  "one active deep research per chat" a property of the insert itself, so two
  concurrent starts cannot both win (no read-then-write window);
- ``created_ts`` (epoch seconds) orders a chat's sessions independently of how
  the ISO timestamps were written.

WAL mode and one connection per thread let activity threads read while one
writes; ``busy_timeout`` makes writers queue instead of failing. Only a lock
that outlasts it (``SQLITE_BUSY`` / ``SQLITE_LOCKED``, told by the error code)
is transient; any other SQLite failure (a damaged schema, a read-only or
corrupt file, a full disk) repeats on retry and surfaces as ``PermanentError``.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime
from pathlib import Path

from shared.adapters.stores import sqlite_chunks, sqlite_quotas
from shared.adapters.stores.base import (
    ACTIVE_SQL,
    mutated_copy,
    supersede_each,
    validate_session_id,
)
from shared.adapters.stores.quota import StartQuota
from shared.adapters.stores.sqlite_quotas import write_transaction
from shared.core.errors import (
    ActiveSessionConflict,
    ConflictError,
    NotFoundError,
    PermanentError,
    TransientError,
)
from shared.core.session_models import ChatMessage, Mode, Owner, SessionRecord, Usage

MAX_UPDATE_ATTEMPTS = 10
BUSY_TIMEOUT_MS = 10_000
# Primary result codes (the low byte of an extended code) a later attempt may not hit.
WAL_RETRY_SECONDS = 0.05
TRANSIENT_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})


SCHEMA = f"""
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    chat_id TEXT NOT NULL,
    mode TEXT NOT NULL,
    status TEXT NOT NULL,
    created_ts REAL NOT NULL,
    version INTEGER NOT NULL,
    doc TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_by_chat ON sessions (chat_id, created_ts);
CREATE INDEX IF NOT EXISTS sessions_by_created ON sessions (created_ts);
-- v2: waiting_plan_approval is active too; a file from before gets the new index.
DROP INDEX IF EXISTS one_active_deep_research;
CREATE UNIQUE INDEX IF NOT EXISTS one_active_deep_research_v2 ON sessions (chat_id)
    WHERE mode = '{Mode.deep_research.value}' AND status IN ({ACTIVE_SQL});
CREATE TABLE IF NOT EXISTS chat_messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id TEXT NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    session_id TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chat_messages_by_chat ON chat_messages (chat_id, seq);
CREATE INDEX IF NOT EXISTS chat_messages_by_session ON chat_messages (session_id);
"""


class SqliteSessionStore(sqlite_chunks.SqliteChunks):
    """Sessions and chat history in one SQLite file (created with its folder if missing)."""

    kind = "sqlite"

    def __init__(self, path: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
        self.path = Path(path)
        self._busy_timeout_ms = busy_timeout_ms
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        with self._errors():
            connection = self._connection()
            self._use_wal(connection)
            connection.executescript(SCHEMA + sqlite_chunks.SCHEMA)
            sqlite_quotas.migrate(connection)

    def _use_wal(self, connection: sqlite3.Connection) -> None:
        """Switch the file to WAL once. Asking for it while another connection reads can
        fail at once (SQLite skips the busy handler there to avoid a deadlock), so look
        first, and retry a switch for up to the busy timeout."""
        deadline = time.monotonic() + self._busy_timeout_ms / 1000
        while True:
            try:
                (mode,) = connection.execute("PRAGMA journal_mode").fetchone()
                if mode.lower() != "wal":
                    connection.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                busy = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF in TRANSIENT_CODES
                if not busy or time.monotonic() >= deadline:
                    raise
                time.sleep(WAL_RETRY_SECONDS)

    # -- connections -------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection (sqlite3 connections must not be shared mid-statement)."""
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(
                self.path,
                isolation_level=None,
                check_same_thread=False,
                timeout=self._busy_timeout_ms / 1000,
            )
            connection.execute(f"PRAGMA busy_timeout={int(self._busy_timeout_ms)}")
            connection.execute("PRAGMA synchronous=NORMAL")
            self._local.connection = connection
            with self._connections_lock:
                self._connections.append(connection)
        return connection

    def close(self) -> None:
        """Close every connection this store opened (tests, shutdown)."""
        with self._connections_lock:
            for connection in self._connections:
                connection.close()
            self._connections.clear()
        self._local = threading.local()

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Translate what is left of sqlite3's errors once, by SQLite's result code.

        Integrity errors are handled where they happen (they mean a conflict).
        """
        try:
            yield
        except sqlite3.DatabaseError as exc:
            code = getattr(exc, "sqlite_errorcode", None)
            name = getattr(exc, "sqlite_errorname", None) or type(exc).__name__
            if code is not None and code & 0xFF in TRANSIENT_CODES:
                raise TransientError(f"sqlite session store is busy ({name})") from exc
            raise PermanentError(f"sqlite session store failed ({name}): {exc}") from exc

    # -- sessions ------------------------------------------------------------------

    def create(self, record: SessionRecord, quota: StartQuota | None = None) -> SessionRecord:
        """One insert; under a quota, counted and inserted in one write transaction."""
        validate_session_id(record.id)
        counted = quota is not None and quota.limited
        with self._errors():
            connection = self._connection()
            try:
                with write_transaction(connection) if counted else nullcontext():
                    if quota is not None and counted:
                        sqlite_quotas.check_and_count(connection, record.owner, quota)
                    connection.execute(
                        "INSERT INTO sessions (id, chat_id, mode, status, created_ts, version, doc)"
                        " VALUES (?, ?, ?, ?, ?, 1, ?)",
                        (record.id, record.chat_id, *self._columns(record)),
                    )
            except sqlite3.IntegrityError as exc:
                raise self._integrity_error(exc, record) from exc
        return record.model_copy(update={"etag": "1"})

    def spent_today(self, owner: Owner, day_start: datetime) -> Usage:
        with self._errors():
            return sqlite_quotas.spent_today(self._connection(), owner, day_start)

    def get(self, session_id: str) -> SessionRecord:
        validate_session_id(session_id)
        with self._errors():
            row = (
                self._connection()
                .execute("SELECT doc, version FROM sessions WHERE id = ?", (session_id,))
                .fetchone()
            )
        if row is None:
            raise NotFoundError(f"unknown session {session_id!r}")
        return _record(row)

    def update(self, session_id: str, mutate: Callable[[SessionRecord], None]) -> SessionRecord:
        """Optimistic update (see ``mutated_copy`` for what ``mutate`` may do)."""
        for _attempt in range(MAX_UPDATE_ATTEMPTS):
            current = self.get(session_id)
            draft = mutated_copy(current, mutate)
            version = int(current.etag or 0)
            with self._errors():
                try:
                    cursor = self._connection().execute(
                        "UPDATE sessions SET mode = ?, status = ?, created_ts = ?, doc = ?,"
                        " version = version + 1 WHERE id = ? AND version = ?",
                        (*self._columns(draft), session_id, version),
                    )
                except sqlite3.IntegrityError as exc:
                    raise self._integrity_error(exc, draft) from exc
            if cursor.rowcount == 1:
                return draft.model_copy(update={"etag": str(version + 1)})
        raise TransientError(
            f"session {session_id!r} kept changing; gave up after {MAX_UPDATE_ATTEMPTS} attempts"
        )

    def active_deep_research(self, chat_id: str) -> SessionRecord | None:
        with self._errors():
            row = (
                self._connection()
                .execute(
                    "SELECT doc, version FROM sessions WHERE chat_id = ? AND mode = ?"
                    f" AND status IN ({ACTIVE_SQL})",
                    (chat_id, Mode.deep_research.value),
                )
                .fetchone()
            )
        return None if row is None else _record(row)

    def supersede_active(self, chat_id: str, except_id: str | None = None) -> list[SessionRecord]:
        with self._errors():
            ids = [
                row[0]
                for row in self._connection().execute(
                    f"SELECT id FROM sessions WHERE chat_id = ? AND status IN ({ACTIVE_SQL})"
                    " ORDER BY created_ts, rowid",
                    (chat_id,),
                )
            ]
        return supersede_each(self.update, ids, except_id)

    def list_by_chat(self, chat_id: str, limit: int = 50) -> list[SessionRecord]:
        with self._errors():
            rows = (
                self._connection()
                .execute(
                    "SELECT doc, version FROM sessions WHERE chat_id = ?"
                    " ORDER BY created_ts DESC, rowid DESC LIMIT ?",
                    (chat_id, max(limit, 0)),
                )
                .fetchall()
            )
        return [_record(row) for row in rows]

    def list_active(self, limit: int = 1000) -> list[SessionRecord]:
        with self._errors():
            rows = (
                self._connection()
                .execute(
                    f"SELECT doc, version FROM sessions WHERE status IN ({ACTIVE_SQL})"
                    " ORDER BY created_ts, rowid LIMIT ?",
                    (max(limit, 0),),
                )
                .fetchall()
            )
        return [_record(row) for row in rows]

    def list_idle_before(self, cutoff: datetime, limit: int = 100) -> list[SessionRecord]:
        """``updated_at`` read from the document (``julianday`` parses its ISO form and zone)."""
        updated = "julianday(json_extract(doc, '$.updated_at'))"
        with self._errors():
            rows = (
                self._connection()
                .execute(
                    f"SELECT doc, version FROM sessions WHERE status NOT IN ({ACTIVE_SQL})"
                    f" AND {updated} < julianday(?) ORDER BY {updated}, rowid LIMIT ?",
                    (cutoff.isoformat(), max(limit, 0)),
                )
                .fetchall()
            )
        return [_record(row) for row in rows]

    def delete(self, session_id: str) -> None:
        """One transaction: the session row (its slots), its chat messages and answer
        chunks; what it spent stays on its owner's day (``sqlite_quotas``)."""
        validate_session_id(session_id)
        with self._errors():
            connection = self._connection()
            with write_transaction(connection):
                connection.execute("DELETE FROM chat_messages WHERE session_id = ?", (session_id,))
                sqlite_chunks.delete_chunks(connection, session_id)
                sqlite_quotas.keep_spend_of(connection, session_id)
                connection.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    # -- chat history --------------------------------------------------------------

    def append_message(self, chat_id: str, message: ChatMessage) -> None:
        created_at = (message.created_at or datetime.now(UTC)).isoformat()
        with self._errors():
            self._connection().execute(
                "INSERT INTO chat_messages (chat_id, role, content, session_id, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (chat_id, message.role, message.content, message.session_id, created_at),
            )

    def history(self, chat_id: str, limit: int) -> list[ChatMessage]:
        if limit <= 0:
            return []
        with self._errors():
            rows = (
                self._connection()
                .execute(
                    "SELECT role, content, session_id, created_at FROM chat_messages"
                    " WHERE chat_id = ? ORDER BY seq DESC LIMIT ?",
                    (chat_id, limit),
                )
                .fetchall()
            )
        return [
            ChatMessage(role=role, content=content, session_id=session_id, created_at=created_at)
            for role, content, session_id, created_at in reversed(rows)
        ]

    def ping(self) -> None:
        with self._errors():
            self._connection().execute("SELECT 1").fetchone()

    # -- internals -----------------------------------------------------------------

    @staticmethod
    def _columns(record: SessionRecord) -> tuple[str, str, float, str]:
        doc = record.model_dump_json(exclude={"etag"})
        return record.mode.value, record.status.value, record.created_at.timestamp(), doc

    def _integrity_error(self, exc: sqlite3.IntegrityError, record: SessionRecord) -> Exception:
        """Tell the primary key from the one-active index by SQLite's extended error code."""
        if exc.sqlite_errorcode == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
            return ConflictError(f"session {record.id!r} already exists")
        active = self.active_deep_research(record.chat_id)
        return ActiveSessionConflict(record.chat_id, active.id if active else None)


def _record(row: tuple[str, int]) -> SessionRecord:
    doc, version = row
    return SessionRecord.model_validate_json(doc).model_copy(update={"etag": str(version)})
