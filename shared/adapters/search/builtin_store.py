"""The built-in collection's file: its chunks in the SQLite FTS5 index, built once, read-only.

The corpus (``corpus_sources``) is chunked like an upload (``chunking``: sections into
passages, never across a heading) into one SQLite file,
``DATA_DIR/corpus-cache/<key>.sqlite3``, keyed by what the documents depend on (for the
Python documentation: the interpreter's version and the module list; for a folder: its
files) and ``CACHE_VERSION``. Beside the FTS5 table the file keeps each chunk's sentences
with their content tokens (splitting the corpus into sentences is what takes seconds), the
corpus's idf and, when the embedding model is installed, each chunk's vector
(``corpus_vectors``; the key names the model), so a worker with the file on disk is ready in
well under a second. The file is written under a temporary name and renamed, so a reader
never opens a half-built one; once built it is only ever opened read-only
(``SqliteIndex(read_only=True)``): it is the service's data, not a team's, so in Azure too
it is this file, never a Cosmos container. Loading reads every chunk once, and the worker
keeps them (``BuiltinIndex``): the file then only ranks. It is built where it is missing: in
devhost's warm-up, but on Azure Functions (no start-up hook) by the first request that needs
it, which pays the build.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sqlite3
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from shared.adapters.documents.base import ParsedDocument
from shared.adapters.documents.chunking import chunk_document
from shared.adapters.documents.collection_search import (
    corpus_document_id,
    page_text,
    page_tokens,
)
from shared.adapters.documents.fts import SqliteIndex
from shared.adapters.search import corpus_sources, corpus_vectors
from shared.adapters.search.builtin_index import BuiltinIndex
from shared.core.collection_models import (
    BuiltinCatalog,
    Chunk,
    Collection,
    DocumentRecord,
    DocumentStatus,
    content_hash,
)
from shared.core.config import Settings
from shared.core.session_models import Owner
from shared.tools import lexical, sentence_split

BUILTIN_OWNER = "built-in"  # no principal has this id: the owner rules never match it
CACHE_VERSION = (
    "builtin-collection-v15"  # bump when reading, chunking, splitting or the schema changes
)
_EXTRA = """
CREATE TABLE chunk_sentences (chunk_id TEXT PRIMARY KEY, sentences TEXT, tokens TEXT);
CREATE TABLE corpus_idf (token TEXT PRIMARY KEY, idf REAL);
CREATE TABLE chunk_vectors (chunk_id TEXT PRIMARY KEY, vector BLOB);
"""


@dataclass
class BuiltinDocument:
    """One document as the reader serves it: the text and sentences of its chunks."""

    url: str
    document_id: str
    title: str
    text: str
    sentences: tuple[str, ...]
    sentence_tokens: list[list[str]]
    tokens: frozenset[str] = frozenset()  # content tokens of title and text
    title_tokens: frozenset[str] = frozenset()
    chunks: int = 0


@dataclass
class BuiltinCollection:
    collection_id: str
    name: str
    index: BuiltinIndex
    documents: list[BuiltinDocument]
    idf: dict[str, float]
    by_url: dict[str, int] = field(default_factory=dict)
    by_id: dict[str, int] = field(default_factory=dict)
    # per chunk its unit vector (float32) and its document's index in ``documents``; None
    # when the model is not installed (``corpus_vectors``)
    vectors: np.ndarray | None = None
    vector_owner: np.ndarray | None = None


def cache_path(settings: Settings) -> Path:
    digest = hashlib.sha256(CACHE_VERSION.encode())
    digest.update(corpus_sources.corpus_name(settings).encode())
    digest.update(corpus_sources.fingerprint(settings).encode())
    digest.update(corpus_vectors.model_tag().encode())
    return Path(settings.data_dir) / "corpus-cache" / f"{digest.hexdigest()[:32]}.sqlite3"


def load(settings: Settings) -> BuiltinCollection:
    """The built-in collection from its file, built first when there is none yet."""
    path = cache_path(settings)
    collection_id = corpus_sources.collection_id_for(settings)
    if not path.is_file():
        _build(settings, collection_id, path)
    try:
        return _open(settings, collection_id, path)
    except sqlite3.DatabaseError:  # torn or from another schema: built again
        path.unlink(missing_ok=True)
        _build(settings, collection_id, path)
        return _open(settings, collection_id, path)


def _build(settings: Settings, collection_id: str, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.unlink(missing_ok=True)
    index = SqliteIndex(tmp)
    df: dict[str, int] = {}
    documents = corpus_sources.documents(settings)
    embedded: list[tuple[str, str]] = []  # (chunk id, text embedded)
    with sqlite3.connect(tmp, isolation_level=None) as db:
        db.executescript(_EXTRA)
        for doc in documents:
            document_id = corpus_document_id(doc.url)
            parsed = ParsedDocument(title=doc.title, sections=doc.sections)
            chunks = chunk_document(parsed, collection_id, document_id, doc.url)
            index.replace_document(collection_id, document_id, chunks)
            rows = []
            for chunk in chunks:
                sentences = sentence_split.split_sentences(chunk.text, "en")
                tokens = [lexical.content_tokens(s) for s in sentences]
                rows.append((chunk.id, json.dumps(sentences), json.dumps(tokens)))
                said = corpus_vectors.chunk_text(doc.title, chunk.heading_path, chunk.text)
                embedded.append((chunk.id, said))
            db.executemany("INSERT INTO chunk_sentences VALUES (?, ?, ?)", rows)
            text, _ = page_text(chunks)
            for token in set(lexical.tokenize(doc.title + "\n" + text)):
                df[token] = df.get(token, 0) + 1
        n = len(documents)
        idf = [(t, math.log(1 + (n - c + 0.5) / (c + 0.5))) for t, c in df.items()]
        db.executemany("INSERT INTO corpus_idf VALUES (?, ?)", idf)
        if embedded and corpus_vectors.available():
            vectors = corpus_vectors.embed([text for _, text in embedded])
            ids = [chunk_id for chunk_id, _ in embedded]
            rows = [(i, v.tobytes()) for i, v in zip(ids, vectors, strict=True)]
            db.executemany("INSERT INTO chunk_vectors VALUES (?, ?)", rows)
        db.execute("PRAGMA journal_mode=DELETE")  # one file: readable without -wal/-shm
    os.replace(tmp, path)


def _open(settings: Settings, collection_id: str, path: Path) -> BuiltinCollection:
    uri = f"{path.resolve().as_uri()}?mode=ro"
    with sqlite3.connect(uri, uri=True) as db:
        rows = db.execute(
            "SELECT c.chunk_id, c.document_id, c.ordinal, c.title, c.origin, c.heading_json,"
            " c.page, c.text, s.sentences, s.tokens"
            " FROM chunks c JOIN chunk_sentences s ON s.chunk_id = c.chunk_id"
            " WHERE c.collection_id = ? ORDER BY c.rowid",
            (collection_id,),
        ).fetchall()
        idf = dict(db.execute("SELECT token, idf FROM corpus_idf").fetchall())
        stored = dict(db.execute("SELECT chunk_id, vector FROM chunk_vectors").fetchall())
    parts: dict[str, list[Chunk]] = {}
    for chunk_id, document_id, ordinal, title, origin, heading, page, text, said, tokens in rows:
        chunk = Chunk(  # as the index reads it back (``SqliteIndex.document_chunks``)
            id=chunk_id,
            collection_id=collection_id,
            document_id=document_id,
            ordinal=int(ordinal),
            title=title,
            origin=origin,
            heading_path=json.loads(heading),
            page=None if page is None else int(page),
            text=text,
            sentences=json.loads(said),
            sentence_tokens=json.loads(tokens),
        )
        parts.setdefault(document_id, []).append(chunk)
    for chunks_of in parts.values():
        chunks_of.sort(key=lambda c: c.ordinal)  # stable; written in this order anyway
    documents = [_document(chunks_of) for chunks_of in parts.values()]
    chunks = parts
    store = SqliteIndex(path, read_only=True)
    vectors, owner = _vectors(stored, list(parts.values()))
    return BuiltinCollection(
        collection_id=collection_id,
        name=corpus_sources.corpus_name(settings),
        index=BuiltinIndex(store, path, collection_id, chunks),
        documents=documents,
        idf=idf,
        by_url={d.url: i for i, d in enumerate(documents)},
        by_id={d.document_id: i for i, d in enumerate(documents)},
        vectors=vectors,
        vector_owner=owner,
    )


def _vectors(
    stored: dict[str, bytes], documents: list[list[Chunk]]
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """One float32 matrix of every chunk's vector, and each row's document (None when the
    file has none, or not one for every chunk)."""
    rows, owner = [], []
    for i, chunks in enumerate(documents):
        for chunk in chunks:
            if chunk.id not in stored:
                return None, None
            rows.append(stored[chunk.id])
            owner.append(i)
    if not rows:
        return None, None
    matrix = np.frombuffer(b"".join(rows), dtype=np.float16).reshape(len(rows), -1)
    return matrix.astype(np.float32), np.array(owner)


def _document(chunks: list[Chunk]) -> BuiltinDocument:
    """A document exactly as the reader serves it (``page_text``), with its tokens."""
    text, sentences = page_text(chunks)
    tokens = page_tokens(chunks, sentences) or []
    first = chunks[0]
    titled = frozenset(lexical.content_tokens(first.title))
    words = {t for group in tokens for t in group} | titled
    return BuiltinDocument(
        url=first.origin,
        document_id=first.document_id,
        title=first.title,
        text=text,
        sentences=tuple(sentences or ()),
        sentence_tokens=tokens,
        tokens=frozenset(words),
        title_tokens=titled,
        chunks=len(chunks),
    )


def catalog(settings: Settings, data: BuiltinCollection) -> BuiltinCatalog:
    """The collection (dated by its file) and one ingested record per document."""
    built = datetime.fromtimestamp(data.index.path.stat().st_mtime, UTC)
    owner = Owner(id=BUILTIN_OWNER)
    collection = Collection(
        id=data.collection_id,
        name=data.name,
        owner=owner,
        created_at=built,
        updated_at=built,
        built_in=True,
    )
    records = [
        DocumentRecord(
            id=doc.document_id,
            collection_id=data.collection_id,
            name=doc.url,
            media_type="text/plain",
            size=len(doc.text.encode()),
            content_hash=content_hash(doc.text.encode()),
            status=DocumentStatus.ingested,
            title=doc.title,
            chunks=doc.chunks,
            updated_at=built,
        )
        for doc in data.documents
    ]
    return BuiltinCatalog(collection=collection, documents=sorted(records, key=lambda r: r.name))
