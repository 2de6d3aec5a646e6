"""Vectors for hybrid search without a vector database: float32 blobs, a cosine scan, RRF.

Pure Python over the stdlib ``array``: a vector is stored unit-length as float32
bytes, so cosine similarity is one dot product at search time. The scan is exact
(every vector of the searched collections is read), which is what a collection
of some thousands of chunks needs; ``make bench`` prints what it costs. The
fusion is reciprocal-rank fusion with the constant Cosmos DB's ``RRF`` and the
web search pipeline use (60): a chunk's score is the sum of ``1 / (60 + rank)``
over the rankings it appears in.
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections.abc import Iterable
from operator import mul

RRF_K = 60


def unit(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else list(vector)


def pack(vector: list[float]) -> bytes:
    """``vector`` made unit-length, as float32 bytes."""
    return array("f", unit(vector)).tobytes()


def unpack(blob: bytes) -> array:
    values = array("f")
    values.frombytes(blob)
    return values


def nearest(
    query: list[float], candidates: Iterable[tuple[str, bytes]], limit: int
) -> list[tuple[str, float]]:
    """The ``limit`` candidates most cosine-similar to ``query``, best first.

    A candidate of another dimension (stored under an earlier embedding model)
    is skipped: its similarity would mean nothing."""
    q = unit(query)
    size = len(q) * 4
    scored = (
        (sum(map(mul, q, unpack(blob))), key) for key, blob in candidates if len(blob) == size
    )
    return [(key, score) for score, key in heapq.nlargest(limit, scored)]


def fuse(*rankings: list[str]) -> list[tuple[str, float]]:
    """Reciprocal-rank fusion of rankings of keys (best first): (key, score), best first."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(scores.items(), key=lambda item: -item[1])
