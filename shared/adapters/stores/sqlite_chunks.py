"""The answer chunks of the SQLite session store (``shared.core.stream_models``).

A table of its own, keyed by (session, seq): appending a seq that exists is a
``ConflictError`` (two writers of one session, or a retried activity that did
not re-read the last seq), never a silent overwrite. A mixin, so the store keeps
one connection per thread and one error translation for both tables.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

from shared.adapters.stores.base import validate_session_id
from shared.adapters.stores.sqlite_quotas import write_transaction
from shared.core.errors import ConflictError
from shared.core.stream_models import AnswerChunk

SCHEMA = """
CREATE TABLE IF NOT EXISTS answer_chunks (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    part TEXT NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
"""


class SqliteChunks:
    """``append_chunks`` / ``chunks_after`` / ``last_chunk_seq`` of the SessionStore port."""

    _connection: Callable[[], sqlite3.Connection]
    _errors: Callable[[], AbstractContextManager[None]]

    def append_chunks(self, session_id: str, chunks: list[AnswerChunk]) -> None:
        validate_session_id(session_id)
        rows = [(session_id, c.seq, c.part, c.kind, c.text) for c in chunks]
        with self._errors():
            connection = self._connection()
            try:
                with write_transaction(connection):
                    connection.executemany(
                        "INSERT INTO answer_chunks (session_id, seq, part, kind, text)"
                        " VALUES (?, ?, ?, ?, ?)",
                        rows,
                    )
            except sqlite3.IntegrityError as exc:
                raise ConflictError(f"session {session_id!r} has these chunks already") from exc

    def chunks_after(self, session_id: str, after: int, limit: int) -> list[AnswerChunk]:
        validate_session_id(session_id)
        with self._errors():
            rows = (
                self._connection()
                .execute(
                    "SELECT seq, part, kind, text FROM answer_chunks"
                    " WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                    (session_id, after, max(limit, 0)),
                )
                .fetchall()
            )
        return list(_chunks(rows))

    def last_chunk_seq(self, session_id: str) -> int:
        validate_session_id(session_id)
        with self._errors():
            (last,) = (
                self._connection()
                .execute("SELECT MAX(seq) FROM answer_chunks WHERE session_id = ?", (session_id,))
                .fetchone()
            )
        return int(last or 0)


def delete_chunks(connection: sqlite3.Connection, session_id: str) -> None:
    """Inside the store's delete transaction: the chunks go with the session."""
    connection.execute("DELETE FROM answer_chunks WHERE session_id = ?", (session_id,))


def _chunks(rows: list[tuple[int, str, str, str]]) -> Iterator[AnswerChunk]:
    for seq, part, kind, text in rows:
        yield AnswerChunk(seq=seq, part=part, kind=kind, text=text)
