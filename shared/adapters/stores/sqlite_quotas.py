"""Per-owner quotas in the SQLite session store (``quota.py`` says what is enforced).

- ``owner_key`` is a virtual column computed from the session document (tenant
  and principal id), indexed with the status and the creation time: adding
  it to a file from before quotas needs no rewrite of any row;
- the running sessions of an owner are counted from ``sessions`` itself, so a
  slot frees the moment a status update or a delete commits;
- ``owner_days`` keeps, per owner and UTC day, the starts and what deleted
  sessions had spent: rows that deleting a session must not take away.

Every check runs inside the create's ``BEGIN IMMEDIATE`` transaction, which
holds the file's write lock from the first read: two starts are serialised,
and the second counts the first.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime

from shared.adapters.stores.base import ACTIVE_SQL, USAGE_FIELDS
from shared.adapters.stores.quota import StartQuota
from shared.core.session_models import Owner, Usage

OWNER_KEY_SQL = (
    "coalesce(json_extract(doc, '$.owner.tenant'), '') || char(10) ||"
    " coalesce(json_extract(doc, '$.owner.id'), 'anonymous')"
)

SCHEMA = """
CREATE INDEX IF NOT EXISTS sessions_by_owner_status ON sessions (owner_key, status);
CREATE INDEX IF NOT EXISTS sessions_by_owner_created ON sessions (owner_key, created_ts);
CREATE TABLE IF NOT EXISTS owner_days (
    owner_key TEXT NOT NULL,
    day TEXT NOT NULL,
    sessions INTEGER NOT NULL DEFAULT 0,
    deleted_calls INTEGER NOT NULL DEFAULT 0,
    deleted_prompt_tokens INTEGER NOT NULL DEFAULT 0,
    deleted_completion_tokens INTEGER NOT NULL DEFAULT 0,
    deleted_cost REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (owner_key, day)
);
"""


def owner_key(owner: Owner) -> str:
    """The value of the ``owner_key`` column for ``owner``'s sessions."""
    return f"{owner.tenant}\n{owner.id}"


def migrate(connection: sqlite3.Connection) -> None:
    """Add the owner column (if missing), its indexes and the daily table.

    The look and the change are one write transaction: two processes opening
    an old file at once add the column once.
    """
    with write_transaction(connection):
        columns = {row[1] for row in connection.execute("PRAGMA table_xinfo(sessions)")}
        if "owner_key" not in columns:
            connection.execute(
                f"ALTER TABLE sessions ADD COLUMN owner_key TEXT"
                f" GENERATED ALWAYS AS ({OWNER_KEY_SQL}) VIRTUAL"
            )
    connection.executescript(SCHEMA)


@contextmanager
def write_transaction(connection: sqlite3.Connection) -> Iterator[None]:
    """A write transaction that holds the file's write lock from its first statement
    (``BEGIN IMMEDIATE``), so what it reads cannot change before it writes."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


def check_and_count(connection: sqlite3.Connection, owner: Owner, quota: StartQuota) -> None:
    """Refuse (``QuotaExceeded``) or count one more start; call inside the transaction."""
    key = owner_key(owner)
    if quota.concurrent:
        (running,) = connection.execute(
            f"SELECT COUNT(*) FROM sessions WHERE owner_key = ? AND status IN ({ACTIVE_SQL})",
            (key,),
        ).fetchone()
        if running >= quota.concurrent:
            raise quota.refuse_concurrent(running)
    if quota.per_day:
        row = connection.execute(
            "SELECT sessions FROM owner_days WHERE owner_key = ? AND day = ?", (key, quota.day)
        ).fetchone()
        started = row[0] if row else 0
        if started >= quota.per_day:
            raise quota.refuse_per_day(started)
        connection.execute(
            "INSERT INTO owner_days (owner_key, day, sessions) VALUES (?, ?, 1)"
            " ON CONFLICT (owner_key, day) DO UPDATE SET sessions = sessions + 1",
            (key, quota.day),
        )


_DELETED = ("deleted_calls", "deleted_prompt_tokens", "deleted_completion_tokens", "deleted_cost")


def keep_spend_of(connection: sqlite3.Connection, session_id: str) -> None:
    """Add a session's usage to its owner's day before the session is deleted."""
    usage = ", ".join(f"coalesce(json_extract(doc, '$.usage.{f}'), 0)" for f in USAGE_FIELDS)
    add = ", ".join(f"{c} = {c} + excluded.{c}" for c in _DELETED)
    connection.execute(
        f"INSERT INTO owner_days (owner_key, day, {', '.join(_DELETED)})"
        f" SELECT owner_key, date(created_ts, 'unixepoch'), {usage}"
        f" FROM sessions WHERE id = ?"
        f" ON CONFLICT (owner_key, day) DO UPDATE SET {add}",
        (session_id,),
    )


def spent_today(connection: sqlite3.Connection, owner: Owner, day_start: datetime) -> Usage:
    """The owner's sessions started since ``day_start``, plus the day's deleted spend."""
    key = owner_key(owner)
    sums = ", ".join(f"coalesce(sum(json_extract(doc, '$.usage.{f}')), 0)" for f in USAGE_FIELDS)
    live = connection.execute(
        f"SELECT {sums} FROM sessions WHERE owner_key = ? AND created_ts >= ?",
        (key, day_start.timestamp()),
    ).fetchone()
    deleted = connection.execute(
        f"SELECT {', '.join(_DELETED)} FROM owner_days WHERE owner_key = ? AND day = ?",
        (key, day_start.date().isoformat()),
    ).fetchone() or (0, 0, 0, 0.0)
    return _usage(live) + _usage(deleted)


def _usage(row: tuple) -> Usage:
    """A row of sums in ``USAGE_FIELDS`` order (``_DELETED`` keeps that order)."""
    return Usage(**dict(zip(USAGE_FIELDS, row, strict=True)))
