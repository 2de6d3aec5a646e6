"""The built-in collection's chunk vectors for ``bench.semantic``, cached on disk.

Every chunk of the built-in collection is embedded (``shared.tools.local_embeddings``) as
its document's title, its heading path and its text, the way a reader sees the passage
("itertools — Functions creating iterators" says what a bare list of calls is about). The
model reads 256 word pieces: a 1,200-character chunk is cut a little (about 200 on average).
The vectors are kept in ``VECTORS_DIR/vectors-<model>.npz`` by the digest of the text
embedded, so the cold build is paid once per model, and a changed corpus embeds only its
changed chunks.

``python -m bench.semantic_vectors --ship`` writes the vectors the repository ships
(``shared/adapters/search/corpus_vectors.npz``, float16) from the built-in collection as
this machine builds it: run it when the corpus changes (a new Python, a module added).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.scenarios import offline_settings
from shared.adapters.search import corpus_vectors
from shared.adapters.search.builtin_corpus import BuiltinCorpus
from shared.tools import local_embeddings

VECTORS_DIR = Path(tempfile.gettempdir()) / "bench-semantic"


@dataclass(frozen=True)
class ChunkVectors:
    keys: list[str]  # per document: its corpus key ("python-stdlib/itertools")
    titles: list[str]  # per document
    owner: np.ndarray  # per chunk: the index of its document in ``keys``
    vectors: np.ndarray  # per chunk: its unit vector
    built_seconds: float | None  # the wall time embedding now, None when all were cached
    tokens: int  # word pieces embedded now
    embedded: int  # chunks embedded now (the others were in the cache)


def chunk_texts(corpus: BuiltinCorpus) -> tuple[list[str], list[str], list[int], list[str]]:
    """Document keys and titles, and per chunk its document's index and the text embedded."""
    data = corpus.data
    keys, titles, owner, texts = [], [], [], []
    for i, doc in enumerate(data.documents):
        keys.append(doc.url.removeprefix("corpus://"))
        titles.append(doc.title)
        for chunk in corpus.index.document_chunks(data.collection_id, doc.document_id):
            owner.append(i)
            texts.append(corpus_vectors.chunk_text(doc.title, chunk.heading_path, chunk.text))
    return keys, titles, owner, texts


def model_key() -> str:
    with (local_embeddings.model_dir() / "model.safetensors").open("rb") as weights:
        return hashlib.file_digest(weights, "sha256").hexdigest()[:16]


def chunk_vectors(corpus: BuiltinCorpus, folder: Path = VECTORS_DIR) -> ChunkVectors:
    """The collection's chunk vectors: those of texts embedded before from the cache, the
    others embedded now (and added to it)."""
    keys, titles, owner, texts = chunk_texts(corpus)
    path = folder / f"vectors-{model_key()}.npz"
    known: dict[str, np.ndarray] = {}
    if path.is_file():
        with np.load(path) as cached:
            known = dict(zip(cached["digests"].tolist(), cached["vectors"], strict=True))
    digests = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
    missing = list(dict.fromkeys(d for d in digests if d not in known))
    seconds, tokens = None, 0
    if missing:
        todo = [texts[digests.index(d)] for d in missing]
        started = time.perf_counter()
        known.update(zip(missing, local_embeddings.encode(todo), strict=True))
        seconds = time.perf_counter() - started
        tokens = local_embeddings.token_count(todo)
        folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
        np.savez(tmp, digests=np.array(list(known)), vectors=np.stack(list(known.values())))
        os.replace(tmp, path)
    vectors = np.stack([known[d] for d in digests])
    return ChunkVectors(keys, titles, np.array(owner), vectors, seconds, tokens, len(missing))


def document_cosines(vectors: ChunkVectors, question: np.ndarray) -> np.ndarray:
    """Per document, its best chunk's cosine to the question's unit vector."""
    return corpus_vectors.document_cosines(
        vectors.vectors, vectors.owner, len(vectors.keys), question
    )


def ship(data_dir: Path = VECTORS_DIR) -> int:
    """Write the shipped vectors: the collection's own (built with the file there is, so only
    the chunks it lacks are embedded now)."""
    corpus = BuiltinCorpus(offline_settings(data_dir))
    data = corpus.data
    if data.vectors is None:
        print("the embedding model is not installed: nothing to ship", file=sys.stderr)
        return 1
    _, _, _, texts = chunk_texts(corpus)
    corpus_vectors.ship(texts, data.vectors)
    size = corpus_vectors.SHIPPED.stat().st_size
    print(f"{len(texts)} chunks written to {corpus_vectors.SHIPPED} ({size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.semantic_vectors")
    parser.add_argument("--ship", action="store_true", help="write corpus_vectors.npz")
    parser.add_argument("--data-dir", type=Path, default=VECTORS_DIR)
    args = parser.parse_args()
    sys.exit(ship(args.data_dir) if args.ship else parser.print_usage() or 0)
