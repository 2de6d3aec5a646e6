"""Vectors for hybrid search without a vector database: float32 blobs, a cosine scan, RRF.

A vector is stored unit-length as float32 bytes, so cosine similarity is one
dot product at search time: the searched collections' vectors are stacked into
one numpy matrix and multiplied by the query (numpy: pure Python took about
0.3 s per 1,000 vectors of 1,536 dimensions). The scan is exact (every vector of
the searched collections is read), which is what collections of some thousands
of chunks need; ``make bench`` prints what it costs over 10,000. The
fusion is reciprocal-rank fusion with the constant Cosmos DB's ``RRF`` and the
web search pipeline use (60): a chunk's score is the sum of ``1 / (60 + rank)``
over the rankings it appears in.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

RRF_K = 60


def unit(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else list(vector)


def pack(vector: list[float]) -> bytes:
    """``vector`` made unit-length, as float32 bytes."""
    return np.asarray(unit(vector), dtype=np.float32).tobytes()


def unpack(blob: bytes) -> list[float]:
    return np.frombuffer(blob, dtype=np.float32).tolist()


def nearest(
    query: list[float], candidates: Iterable[tuple[str, bytes]], limit: int
) -> list[tuple[str, float]]:
    """The ``limit`` candidates most cosine-similar to ``query``, best first.

    A candidate of another dimension (stored under an earlier embedding model)
    is skipped: its similarity would mean nothing."""
    q = np.asarray(unit(query), dtype=np.float32)
    keys: list[str] = []
    blobs: list[bytes] = []
    for key, blob in candidates:
        if len(blob) == q.nbytes:
            keys.append(key)
            blobs.append(blob)
    if not keys or limit <= 0:
        return []
    matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(keys), q.size)
    scores = matrix @ q
    top = np.argsort(-scores, kind="stable")[:limit]
    return [(keys[i], float(scores[i])) for i in top]


def fuse(*rankings: list[str]) -> list[tuple[str, float]]:
    """Reciprocal-rank fusion of rankings of keys (best first): (key, score), best first."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(scores.items(), key=lambda item: -item[1])
