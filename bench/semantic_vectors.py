"""The built-in collection's chunk vectors for ``bench.semantic``: the collection's own.

Every chunk of the built-in collection is embedded (``shared.tools.local_embeddings``) as
its document's title, its heading path and its text, the way a reader sees the passage
("itertools — Functions creating iterators" says what a bare list of calls is about). The
model reads 256 word pieces: a 1,200-character chunk is cut a little (about 200 on average).
The collection keeps the vectors in its cache file (``builtin_store``), built from the ones
the repository ships, so the bench reads the vectors the engine ranks by.

``python -m bench.semantic_vectors --ship`` writes the vectors the repository ships
(``shared/adapters/search/corpus_vectors.npz``, float16) from the built-in collection as
this machine builds it: run it when the corpus changes (a new Python, a module added).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.scenarios import offline_settings
from shared.adapters.search import corpus_vectors
from shared.adapters.search.builtin_corpus import BuiltinCorpus

VECTORS_DIR = Path(tempfile.gettempdir()) / "bench-semantic"


@dataclass(frozen=True)
class ChunkVectors:
    keys: list[str]  # per document: its corpus key ("python-stdlib/itertools")
    owner: np.ndarray  # per chunk: the index of its document in ``keys``
    vectors: np.ndarray  # per chunk: its unit vector


def chunk_texts(corpus: BuiltinCorpus) -> list[str]:
    """Per chunk, in the collection's order, the text embedded."""
    data = corpus.data
    return [
        corpus_vectors.chunk_text(doc.title, chunk.heading_path, chunk.text)
        for doc in data.documents
        for chunk in corpus.index.document_chunks(data.collection_id, doc.document_id)
    ]


def chunk_vectors(corpus: BuiltinCorpus) -> ChunkVectors:
    """The collection's chunk vectors (a build embeds what the shipped file lacks)."""
    data = corpus.data
    if data.vectors is None or data.vector_owner is None:
        raise SystemExit("the embedding model is not installed (make setup installs it)")
    keys = [doc.url.removeprefix("corpus://") for doc in data.documents]
    return ChunkVectors(keys, data.vector_owner, data.vectors)


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
    texts = chunk_texts(corpus)
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
