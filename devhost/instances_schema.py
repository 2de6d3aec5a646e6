"""The layout of devhost's SQLite tables, and the one migration it has needed.

Status reads must cost the same whatever an instance's history: a status poll
reads every column but ``history`` and ``book``. SQLite stores a row's columns
in declaration order and a long value spills into a chain of overflow pages,
so a column declared *after* a long history is reached only by walking that
chain. Hence ``history`` and ``book`` come last. A data dir written with the
earlier layout (timestamps after the history) is rebuilt once, in one
transaction, when the store opens it.
"""

from __future__ import annotations

import sqlite3

# Every column a status read needs, in table order; the history and book follow.
SUMMARY_COLUMNS = (
    "id, name, execution_id, status, input, output, custom_status, parent_id, parent_task_id, "
    "created_at, updated_at"
)
ALL_COLUMNS = f"{SUMMARY_COLUMNS}, history, book"

_INSTANCES = """
CREATE TABLE IF NOT EXISTS {table}(
  id TEXT PRIMARY KEY, name TEXT NOT NULL, execution_id TEXT NOT NULL,
  status TEXT NOT NULL, input TEXT, output TEXT, custom_status TEXT,
  parent_id TEXT, parent_task_id INTEGER,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
  history TEXT NOT NULL, book TEXT NOT NULL);
"""

SCHEMA = (
    _INSTANCES.format(table="instances")
    + """
CREATE TABLE IF NOT EXISTS inbox(
  seq INTEGER PRIMARY KEY AUTOINCREMENT, instance_id TEXT NOT NULL,
  execution_id TEXT NOT NULL, event TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS inbox_by_instance ON inbox(instance_id, seq);
CREATE TABLE IF NOT EXISTS work(
  id INTEGER PRIMARY KEY AUTOINCREMENT, instance_id TEXT NOT NULL,
  execution_id TEXT NOT NULL, task_id INTEGER NOT NULL, kind TEXT NOT NULL,
  name TEXT, input TEXT, due_at REAL);
CREATE INDEX IF NOT EXISTS work_by_instance ON work(instance_id);
"""
)


def column_order(conn: sqlite3.Connection) -> list[str]:
    return [row[1] for row in conn.execute("PRAGMA table_info(instances)")]


def create_or_migrate(conn: sqlite3.Connection) -> None:
    """Create the tables; rebuild an ``instances`` table written with the earlier layout."""
    conn.executescript(SCHEMA)
    if column_order(conn) == [c.strip() for c in ALL_COLUMNS.split(",")]:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(_INSTANCES.format(table="instances_new"))
        conn.execute(
            f"INSERT INTO instances_new ({ALL_COLUMNS}) SELECT {ALL_COLUMNS} FROM instances"
        )
        conn.execute("DROP TABLE instances")
        conn.execute("ALTER TABLE instances_new RENAME TO instances")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
