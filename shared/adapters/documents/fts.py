"""The Index on SQLite FTS5: BM25 over chunk text, title and heading path.

One database file (``DATA_DIR/collections.sqlite3``), one FTS5 table; the columns
a citation needs ride along UNINDEXED. A query is turned into an OR of quoted
terms, so no user text is read as FTS5 syntax. Each call opens its own connection
(activities run in threads, and SQLite connections are per thread); WAL lets
readers go on while a document is replaced. A read-only file (the built-in
collection's: never written once built) keeps one connection per thread instead:
opening its FTS5 table again cost ~5 ms a query, five times the query itself.

Hybrid search (a query ``vector``): each chunk's vector lives in the ``vectors``
table beside it (unit-length float32, written in the same transaction as the
chunk), and a search fuses the BM25 ranking with an exact cosine scan of the
searched collections' vectors by reciprocal rank (``vectors.py``). Every write
bumps the collection's row in ``vector_versions`` in the same transaction, which
is how a worker knows its cached matrix of a collection's vectors is still good.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from shared.adapters.documents import vectors as vec
from shared.core.collection_models import Chunk, ChunkHit
from shared.core.errors import PermanentError, TransientError

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
_VECTORS = """
CREATE TABLE IF NOT EXISTS vectors (
    collection_id TEXT NOT NULL, chunk_id TEXT NOT NULL, document_id TEXT NOT NULL,
    vector BLOB NOT NULL, PRIMARY KEY (collection_id, chunk_id)
)
"""
_VERSIONS = """
CREATE TABLE IF NOT EXISTS vector_versions (
    collection_id TEXT PRIMARY KEY, version INTEGER NOT NULL
)
"""
_BUMP = (
    "INSERT INTO vector_versions VALUES (?, 1)"
    " ON CONFLICT (collection_id) DO UPDATE SET version = version + 1"
)
_COLLECTION_VECTORS = "SELECT ? || ' ' || chunk_id, vector FROM vectors WHERE collection_id = ?"
_VECTORS_BY_DOCUMENT = (
    "CREATE INDEX IF NOT EXISTS vectors_document ON vectors (collection_id, document_id)"
)


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
        self._local = threading.local()  # read-only: this thread's connection
        if read_only:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(_SCHEMA)
            db.execute(_VECTORS)
            db.execute(_VECTORS_BY_DOCUMENT)
            db.execute(_VERSIONS)
        self._matrices = vec.Matrices()

    def replace_document(
        self,
        collection_id: str,
        document_id: str,
        chunks: list[Chunk],
        vectors: list[list[float]] | None = None,
    ) -> int:
        self._writable()
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
        packed = (
            [
                (collection_id, c.id, document_id, vec.pack(v))
                for c, v in zip(chunks, vectors, strict=True)
            ]
            if vectors is not None
            else []
        )
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            self._delete(db, "collection_id = ? AND document_id = ?", (collection_id, document_id))
            db.executemany("INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
            db.executemany("INSERT INTO vectors VALUES (?, ?, ?, ?)", packed)
            db.execute("COMMIT")
        return len(rows)

    def vectors(self, collection_id: str, document_id: str) -> dict[str, list[float]]:
        sql = "SELECT chunk_id, vector FROM vectors WHERE collection_id = ? AND document_id = ?"
        with self._connect() as db:
            stored = dict(db.execute(sql, (collection_id, document_id)).fetchall())
        texts = {c.id: c.text for c in self.document_chunks(collection_id, document_id)}
        return {texts[i]: vec.unpack(blob) for i, blob in stored.items() if i in texts}

    def delete_document(self, collection_id: str, document_id: str) -> int:
        self._writable()
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            gone = self._delete(
                db, "collection_id = ? AND document_id = ?", (collection_id, document_id)
            )
            db.execute("COMMIT")
            return gone

    def delete_collection(self, collection_id: str) -> int:
        self._writable()
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            gone = self._delete(db, "collection_id = ?", (collection_id,))
            db.execute("COMMIT")
            return gone

    @staticmethod
    def _delete(db: sqlite3.Connection, where: str, args: tuple) -> int:
        db.execute(_BUMP, args[:1])  # every write's first argument is the collection id
        db.execute(f"DELETE FROM vectors WHERE {where}", args)
        return db.execute(f"DELETE FROM chunks WHERE {where}", args).rowcount

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

    def search(
        self,
        collection_ids: list[str],
        query: str,
        limit: int,
        vector: list[float] | None = None,
    ) -> list[ChunkHit]:
        args = _match_args(collection_ids, query, limit)
        if args is None:
            return []
        sql = _ranked(_COLUMNS, len(collection_ids))
        with self._connect() as db:
            lexical = [_hit(row) for row in db.execute(sql, args)]
            if not vector:
                return lexical
            semantic = self._semantic(db, collection_ids, vector, limit)
            known = {_key(h.chunk): h.chunk for h in lexical}
            fused = vec.fuse([_key(h.chunk) for h in lexical], semantic)[:limit]
            known |= self._chunks(db, [key for key, _ in fused if key not in known])
        return [ChunkHit(chunk=known[key], score=score) for key, score in fused if key in known]

    def ranked_chunk_ids(
        self, collection_ids: list[str], query: str, limit: int
    ) -> list[tuple[str, float]]:
        """``(chunk id, score)`` of what ``search`` finds (no vectors), best first, without
        reading the chunks: for a reader that holds them already (the built-in collection
        keeps its own in memory, and reading back a thousand rows of text was most of a
        search's cost)."""
        args = _match_args(collection_ids, query, limit)
        if args is None:
            return []
        with self._connect() as db:
            rows = db.execute(_ranked("chunk_id", len(collection_ids)), args).fetchall()
        return [(chunk_id, -float(rank)) for chunk_id, rank in rows]

    def _semantic(
        self, db: sqlite3.Connection, collection_ids: list[str], vector: list[float], limit: int
    ) -> list[str]:
        """The keys of the ``limit`` chunks nearest ``vector``, best first."""
        marks = ", ".join("?" for _ in collection_ids)
        sql = f"SELECT collection_id, version FROM vector_versions WHERE collection_id IN ({marks})"
        query = vec.query_array(vector)
        scored: list[tuple[str, float]] = []
        for collection_id, version in db.execute(sql, collection_ids).fetchall():
            keys, matrix = self._matrices.get(
                collection_id,
                version,
                query.nbytes,
                lambda c=collection_id: db.execute(_COLLECTION_VECTORS, (c, c)),
            )
            scored += vec.top(query, keys, matrix, limit)
        return [key for key, _ in sorted(scored, key=lambda pair: -pair[1])[:limit]]

    @staticmethod
    def _chunks(db: sqlite3.Connection, keys: list[str]) -> dict[str, Chunk]:
        """The chunks with these ``collection_id chunk_id`` keys (one scan of the table)."""
        if not keys:
            return {}
        marks = ", ".join("?" for _ in keys)
        sql = (
            f"SELECT {_COLUMNS}, 0 FROM chunks WHERE collection_id || ' ' || chunk_id IN ({marks})"
        )
        return {_key(c): c for c in (_hit(row).chunk for row in db.execute(sql, keys))}

    def _writable(self) -> None:
        if self._read_only:
            raise PermanentError(f"the index {self._path.name} is read-only")

    def ping(self) -> None:
        with self._connect() as db:
            db.execute("SELECT 1").fetchone()

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            db = (
                self._reader()
                if self._read_only
                else sqlite3.connect(self._path, timeout=30, isolation_level=None)
            )
        except sqlite3.Error as exc:
            raise TransientError(f"collection index unavailable: {exc}") from exc
        try:
            yield db
        except sqlite3.OperationalError as exc:
            raise TransientError(f"collection index busy: {exc}") from exc
        finally:
            if not self._read_only:
                db.close()

    def _reader(self) -> sqlite3.Connection:
        """This thread's connection to the read-only file, opened on its first query and
        kept (closed with the thread's locals): the file never changes under it."""
        db = getattr(self._local, "db", None)
        if db is None:
            uri = f"{self._path.resolve().as_uri()}?mode=ro"
            db = sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None)
            self._local.db = db
        return db


def _match_args(collection_ids: list[str], query: str, limit: int) -> list | None:
    """The arguments of a ``_ranked`` query; None when it can match nothing."""
    expression = match_expression(query)
    if not expression or not collection_ids or limit <= 0:
        return None
    return [expression, *collection_ids, limit]


def _ranked(columns: str, collections: int) -> str:
    """BM25-ranked ``columns`` of the chunks matching an expression in some collections."""
    marks = ", ".join("?" for _ in range(collections))
    return (
        f"SELECT {columns}, bm25(chunks, {_WEIGHTS}) AS rank FROM chunks"
        f" WHERE chunks MATCH ? AND collection_id IN ({marks}) ORDER BY rank LIMIT ?"
    )


def _key(chunk: Chunk) -> str:
    return f"{chunk.collection_id} {chunk.id}"


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
