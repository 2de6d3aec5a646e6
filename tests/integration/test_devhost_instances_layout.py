"""devhost's instances table keeps the history last, and an older data dir is migrated.

A status read must not walk a long history's overflow pages to reach the
columns after it (``devhost.instances_schema``): here the layout is checked,
and a data dir written with the earlier layout (timestamps after the history)
opens, is rebuilt once, and reads back every instance unchanged.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from devhost import history as h
from devhost.instances import InstanceStore
from devhost.instances_schema import column_order

EARLIER_LAYOUT = """
CREATE TABLE instances(
  id TEXT PRIMARY KEY, name TEXT NOT NULL, execution_id TEXT NOT NULL,
  status TEXT NOT NULL, input TEXT, output TEXT, custom_status TEXT,
  parent_id TEXT, parent_task_id INTEGER,
  history TEXT NOT NULL, book TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
"""
HISTORY = [h.task_completed(i, json.dumps("x" * 200)) for i in range(1000)]
ROW = (
    "long",
    "fan_out",
    "exec-1",
    "Running",
    "500",
    None,
    json.dumps({"done": 3}),
    None,
    None,
    json.dumps(HISTORY),
    json.dumps({"instance": "long"}),
    "2026-11-24T10:00:00.000000Z",
    "2026-11-24T10:05:00.000000Z",
)


def test_the_history_and_book_are_the_last_columns(tmp_path: Path) -> None:
    path = tmp_path / "devhost.sqlite3"
    InstanceStore(path).close()

    with sqlite3.connect(path) as conn:
        assert column_order(conn)[-2:] == ["history", "book"]
    conn.close()


def test_a_data_dir_in_the_earlier_layout_is_migrated_and_reads_the_same(tmp_path: Path) -> None:
    path = tmp_path / "devhost.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.executescript(EARLIER_LAYOUT)
        conn.execute("INSERT INTO instances VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", ROW)
    conn.close()

    store = InstanceStore(path)
    try:
        full, summary = store.get("long"), store.summary("long")
        listed = store.query(prefix="lo", history=False)
    finally:
        store.close()

    assert full is not None and summary is not None
    assert full.history == HISTORY and full.book == {"instance": "long"}
    assert full.created_at == summary.created_at == "2026-11-24T10:00:00.000000Z"
    assert full.updated_at == summary.updated_at == "2026-11-24T10:05:00.000000Z"
    assert summary.custom_status == full.custom_status == json.dumps({"done": 3})
    assert (summary.status, summary.input, summary.history) == ("Running", "500", [])
    assert [i.id for i in listed] == ["long"] and listed[0].history == []
    with sqlite3.connect(path) as conn:
        assert column_order(conn)[-2:] == ["history", "book"]
    conn.close()
