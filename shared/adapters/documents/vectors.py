"""Vectors for hybrid search without a vector database: float32 blobs, a cosine scan, RRF.

A vector is stored unit-length as float32 bytes, so cosine similarity is one
dot product at search time: a collection's vectors are stacked into one numpy
matrix and multiplied by the query (numpy: pure Python took about 0.3 s per
1,000 vectors of 1,536 dimensions). The scan is exact (every vector of the
searched collections is scored), which is what collections of some thousands of
chunks need; ``make bench`` prints what it costs over 10,000. Stacking means
reading every blob (60 MB for 10,000 such vectors), so ``Matrices`` keeps each
collection's matrix in the worker until the collection's version changes. The
fusion is reciprocal-rank fusion with the constant Cosmos DB's ``RRF`` and the
web search pipeline use (60): a chunk's score is the sum of ``1 / (60 + rank)``
over the rankings it appears in.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable

import numpy as np

RRF_K = 60
CACHE_BYTES = 256 * 1024 * 1024  # stacked vectors a worker keeps between searches
Candidates = Iterable[tuple[str, bytes]]


def unit(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else list(vector)


def pack(vector: list[float]) -> bytes:
    """``vector`` made unit-length, as float32 bytes."""
    return np.asarray(unit(vector), dtype=np.float32).tobytes()


def unpack(blob: bytes) -> list[float]:
    return np.frombuffer(blob, dtype=np.float32).tolist()


def query_array(query: list[float]) -> np.ndarray:
    return np.asarray(unit(query), dtype=np.float32)


def stack(candidates: Candidates, nbytes: int) -> tuple[list[str], np.ndarray]:
    """The candidates of ``nbytes`` bytes as (keys, one row per key).

    A candidate of another size (stored under an earlier embedding model) is left
    out: its similarity to the query would mean nothing."""
    keys: list[str] = []
    blobs: list[bytes] = []
    for key, blob in candidates:
        if len(blob) == nbytes:
            keys.append(key)
            blobs.append(blob)
    matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(keys), nbytes // 4)
    return keys, matrix


def top(query: np.ndarray, keys: list[str], matrix: np.ndarray, limit: int) -> list:
    """The ``limit`` rows most cosine-similar to the unit ``query``: (key, score), best first."""
    if not keys or limit <= 0:
        return []
    scores = matrix @ query
    best = np.argsort(-scores, kind="stable")[:limit]
    return [(keys[i], float(scores[i])) for i in best]


def nearest(query: list[float], candidates: Candidates, limit: int) -> list[tuple[str, float]]:
    """The ``limit`` candidates most cosine-similar to ``query``, best first."""
    q = query_array(query)
    return top(q, *stack(candidates, q.nbytes), limit)


class Matrices:
    """Each collection's stacked vectors, kept while its version holds (least recent out)."""

    def __init__(self, max_bytes: int = CACHE_BYTES) -> None:
        self._max_bytes = max_bytes
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple[str, int], tuple[int, list[str], np.ndarray]] = OrderedDict()

    def get(
        self, collection_id: str, version: int, nbytes: int, load: Callable[[], Candidates]
    ) -> tuple[list[str], np.ndarray]:
        key = (collection_id, nbytes)
        with self._lock:
            held = self._items.get(key)
            if held is not None and held[0] == version:
                self._items.move_to_end(key)
                return held[1], held[2]
        keys, matrix = stack(load(), nbytes)
        with self._lock:
            self._items[key] = (version, keys, matrix)
            self._items.move_to_end(key)
            while len(self._items) > 1 and self._size() > self._max_bytes:
                self._items.popitem(last=False)
        return keys, matrix

    def _size(self) -> int:
        return sum(matrix.nbytes for _, _, matrix in self._items.values())


def fuse(*rankings: list[str]) -> list[tuple[str, float]]:
    """Reciprocal-rank fusion of rankings of keys (best first): (key, score), best first."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(scores.items(), key=lambda item: -item[1])
