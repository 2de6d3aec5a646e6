"""The Index on SQLite FTS5: BM25 over chunk text, title and heading path.

One database file (``DATA_DIR/collections.sqlite3``), one FTS5 table; the columns
a citation needs ride along UNINDEXED. A query is turned into an OR of quoted
terms, so no user text is read as FTS5 syntax. Each call opens its own connection
(activities run in threads, and SQLite connections are per thread); WAL lets
readers go on while a document is replaced.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from shared.core.collection_models import Chunk, ChunkHit
from shared.core.errors import TransientError

_TERM = re.compile(r"\w+", re.UNICODE)
MAX_QUERY_TERMS = 32
# BM25 column weights: text, title, heading path (the UNINDEXED columns weigh nothing).
_WEIGHTS = "10.0, 2.0, 4.0"
_COLUMNS = "chunk_id, collection_id, document_id, ordinal, title, origin, heading_json, page, text"
_SCHEMA = """
CREATE VIRTUAL TABLE IF NOT EXISTS chunks USING fts5(
    text, title, heading,
    chunk_id UNINDEXED, collection_id UNINDEXED, document_id UNINDEXED,
    ordinal UNINDEXED, origin UNINDEXED, page UNINDEXED, heading_json UNINDEXED,
    tokenize = 'porter unicode61 remove_diacritics 2'
)
"""


def match_terms(query: str) -> list[str]:
    """The query's distinct words (``\\w+``, lower-cased): nothing a query language reads."""
    terms: list[str] = []
    for term in _TERM.findall(query.lower()):
        if term not in terms:
            terms.append(term)
    return terms[:MAX_QUERY_TERMS]


def match_expression(query: str) -> str:
    """``query`` as an FTS5 expression: its words, each quoted, joined by OR."""
    return " OR ".join(f'"{term}"' for term in match_terms(query))


class SqliteIndex:
    kind = "sqlite-fts5"

    def __init__(self, path: Path, read_only: bool = False) -> None:
        """``read_only``: a file built elsewhere (the built-in collection's), opened for
        reading only: no schema, no journal mode, nothing written beside it."""
        self._path = path
        self._read_only = read_only
        if read_only:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(_SCHEMA)

    def replace_document(self, collection_id: str, document_id: str, chunks: list[Chunk]) -> int:
        rows = [
            (
                c.text,
                c.title,
                " / ".join(c.heading_path),
                c.id,
                collection_id,
                document_id,
                c.ordinal,
                c.origin,
                c.page,
                json.dumps(c.heading_path),
            )
            for c in chunks
        ]
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            db.execute(
                "DELETE FROM chunks WHERE collection_id = ? AND document_id = ?",
                (collection_id, document_id),
            )
            db.executemany("INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
            db.execute("COMMIT")
        return len(rows)

    def delete_document(self, collection_id: str, document_id: str) -> int:
        with self._connect() as db:
            cursor = db.execute(
                "DELETE FROM chunks WHERE collection_id = ? AND document_id = ?",
                (collection_id, document_id),
            )
            return cursor.rowcount

    def delete_collection(self, collection_id: str) -> int:
        with self._connect() as db:
            return db.execute(
                "DELETE FROM chunks WHERE collection_id = ?", (collection_id,)
            ).rowcount

    def count(self, collection_id: str, document_id: str | None = None) -> int:
        sql, args = "SELECT count(*) FROM chunks WHERE collection_id = ?", [collection_id]
        if document_id is not None:
            sql, args = sql + " AND document_id = ?", [*args, document_id]
        with self._connect() as db:
            return int(db.execute(sql, args).fetchone()[0])

    def document_chunks(self, collection_id: str, document_id: str) -> list[Chunk]:
        sql = (
            f"SELECT {_COLUMNS}, 0 FROM chunks WHERE collection_id = ? AND document_id = ?"
            " ORDER BY CAST(ordinal AS INTEGER)"
        )
        with self._connect() as db:
            rows = db.execute(sql, (collection_id, document_id)).fetchall()
        return [_hit(row).chunk for row in rows]

    def search(self, collection_ids: list[str], query: str, limit: int) -> list[ChunkHit]:
        expression = match_expression(query)
        if not expression or not collection_ids or limit <= 0:
            return []
        marks = ", ".join("?" for _ in collection_ids)
        sql = (
            f"SELECT {_COLUMNS}, bm25(chunks, {_WEIGHTS}) AS rank FROM chunks"
            f" WHERE chunks MATCH ? AND collection_id IN ({marks}) ORDER BY rank LIMIT ?"
        )
        with self._connect() as db:
            rows = db.execute(sql, [expression, *collection_ids, limit]).fetchall()
        return [_hit(row) for row in rows]

    def ping(self) -> None:
        with self._connect() as db:
            db.execute("SELECT 1").fetchone()

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            if self._read_only:
                uri = f"{self._path.resolve().as_uri()}?mode=ro"
                db = sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None)
            else:
                db = sqlite3.connect(self._path, timeout=30, isolation_level=None)
        except sqlite3.Error as exc:
            raise TransientError(f"collection index unavailable: {exc}") from exc
        try:
            yield db
        except sqlite3.OperationalError as exc:
            raise TransientError(f"collection index busy: {exc}") from exc
        finally:
            db.close()


def _hit(row: tuple) -> ChunkHit:
    chunk = Chunk(
        id=row[0],
        collection_id=row[1],
        document_id=row[2],
        ordinal=int(row[3]),
        title=row[4],
        origin=row[5],
        heading_path=json.loads(row[6]),
        page=None if row[7] is None else int(row[7]),
        text=row[8],
    )
    return ChunkHit(chunk=chunk, score=-float(row[9]))  # FTS5's bm25() is lower-is-better
