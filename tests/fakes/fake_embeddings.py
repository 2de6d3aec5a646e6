"""Deterministic embeddings for the OpenAI-protocol fake: hashed bags of concepts.

Each word (``\\w+``, lower-cased, stop words left out) is mapped to its concept
(``SYNONYMS``, or itself) and the concept is hashed to one signed dimension; a
text's vector is the unit-length sum. So two texts are close when they share
concepts, and words listed as synonyms count as the same concept: a query that
shares no word with a passage still finds it through listed synonyms.

What that can show: that vectors are stored, fused and used (a synonym found
where BM25 finds nothing, idempotent ingestion, fallbacks). What it cannot:
real semantic similarity. Unlisted paraphrases are unrelated words here, and
hash collisions add noise that shrinks as ``dimensions`` grows.
"""

from __future__ import annotations

import hashlib
import math
import re

DIMENSIONS = 256
STOP_WORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "did", "do", "does", "for", "from"}
    | {"get", "got", "how", "in", "is", "it", "of", "on", "or", "the", "to", "was", "were"}
    | {"what", "when", "where", "which", "who", "why", "with"}
)
# A few synonym groups the tests use; a bench or a test may pass its own table.
SYNONYMS = {
    "impeller": "pump",
    "gasket": "seal",
    "swapped": "replaced",
    "automobile": "car",
    "vehicle": "car",
}


def embed(
    text: str, dimensions: int = DIMENSIONS, synonyms: dict[str, str] | None = None
) -> list[float]:
    table = SYNONYMS if synonyms is None else synonyms
    vector = [0.0] * dimensions
    for word in re.findall(r"\w+", text.lower()):
        if word in STOP_WORDS:
            continue
        digest = hashlib.blake2b(table.get(word, word).encode(), digest_size=8).digest()
        vector[int.from_bytes(digest[:4], "big") % dimensions] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else vector


def embeddings_body(request: dict, dimensions: int, synonyms: dict[str, str] | None) -> dict:
    """The ``POST /v1/embeddings`` reply to ``request`` (its ``input``: a string or a list)."""
    inputs = request.get("input")
    texts = [inputs] if isinstance(inputs, str) else list(inputs or [])
    data = [
        {"object": "embedding", "index": i, "embedding": embed(t, dimensions, synonyms)}
        for i, t in enumerate(texts)
    ]
    tokens = sum(len(t) for t in texts) // 4
    return {
        "object": "list",
        "data": data,
        "model": request.get("model", ""),
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }
