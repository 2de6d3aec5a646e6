"""Hybrid collection search (``EMBEDDING_MODEL`` set) next to words alone, on fake embeddings.

- Recall@10 over the same generated collection as the lexical row (``labelled()``:
  300 one-chunk documents, each with a five-word fact among shared filler), with
  every chunk embedded through the app's embeddings client against the tests'
  OpenAI-protocol fake (1,536 dimensions, as text-embedding-3-small), searched
  through ``CollectionSearch`` as a research does: by the same questions (three
  of the fact's words and five filler words), and by the same questions with the
  fact's words replaced by synonyms (``aliasDxK`` for ``factDxK``) no chunk holds.
- Retrieval latency of hybrid search over ``INDEX_CHUNKS`` chunks: the query's
  embeddings call to the fake over loopback HTTP, BM25, the exact cosine scan of
  every stored vector (numpy), the fusion.

Vectors alone (the exact cosine top 10 of the stored vectors) are printed beside
the two, so the fusion's own effect can be read off.

What the fake's vectors can show: that vectors are stored, fused with BM25 by
reciprocal rank and used at query time, that hybrid keeps what words alone find,
and that a question sharing no word with its passage can still find it. What
they cannot: the fake embeds a text as a hashed bag of words in which listed
synonyms are one word, so "meaning" here is exactly that table; a real model's
gain on real paraphrases is not measured here (it needs a real endpoint).
"""

from __future__ import annotations

import random
import statistics
import time

from bench.collections import (
    FILLER,
    INDEX_CHUNKS,
    LABELLED,
    generated_document,
    labelled,
    recall,
)
from bench.results import Row
from bench.scenarios import temp_dir
from shared.adapters.documents.collection_search import CollectionSearch
from shared.adapters.documents.fts import SqliteIndex
from shared.adapters.documents.hybrid import HybridIndex
from shared.adapters.documents.vectors import nearest, pack
from shared.adapters.search.embeddings import OpenAIEmbeddings
from shared.core.config import Settings
from tests.fakes import fake_embeddings
from tests.fakes.openai_server import FakeOpenAIServer

DIMENSIONS = 1536
LATENCY_QUERIES = 50


def _alias(word: str) -> str:
    return word.replace("fact", "alias", 1) if word.startswith("fact") else word


def _embedder(server: FakeOpenAIServer) -> OpenAIEmbeddings:
    settings = Settings(
        openai_base_url=server.base_url,
        openai_api_key="bench",
        embedding_model="text-embedding-3-small",
    )
    return OpenAIEmbeddings(settings)


def recalls(server: FakeOpenAIServer) -> dict[str, float]:
    """Recall@10, words alone and hybrid, of the plain and of the paraphrased questions."""
    cases = labelled()
    server.synonyms = {_alias(w): w for _, fact, _ in cases for w in fact}
    embedder = _embedder(server)
    index = SqliteIndex(temp_dir() / "bench-hybrid-recall.sqlite3")
    vectors = embedder.embed([chunk.text for chunk, _, _ in cases])
    for (chunk, _, _), vector in zip(cases, vectors, strict=True):
        index.replace_document("c", chunk.document_id, [chunk], [vector])
    plain = [(chunk.document_id, question) for chunk, _, question in cases]
    paraphrased = [(d, " ".join(_alias(w) for w in q.split())) for d, q in plain]
    lexical = CollectionSearch(index, ["c"])
    hybrid = CollectionSearch(HybridIndex(index, embedder), ["c"])
    stored = [(chunk.document_id, pack(v)) for (chunk, _, _), v in zip(cases, vectors, strict=True)]

    def vectors_alone(questions: list[tuple[str, str]]) -> float:
        asked = embedder.embed([q for _, q in questions])
        pairs = zip(questions, asked, strict=True)
        found = [d in {key for key, _ in nearest(v, stored, 10)} for (d, _), v in pairs]
        return sum(found) / len(found)

    return {
        "lexical": recall(lexical, plain),
        "vectors": vectors_alone(plain),
        "hybrid": recall(hybrid, plain),
        "lexical paraphrased": recall(lexical, paraphrased),
        "vectors paraphrased": vectors_alone(paraphrased),
        "hybrid paraphrased": recall(hybrid, paraphrased),
    }


def latency_ms(server: FakeOpenAIServer) -> tuple[float, float]:
    """p50 / p95 of a hybrid search over INDEX_CHUNKS chunks with vectors."""
    rng = random.Random(11)
    index = SqliteIndex(temp_dir() / "bench-hybrid-latency.sqlite3")
    per_doc = 10
    for d in range(INDEX_CHUNKS // per_doc):
        texts = [" ".join(rng.choice(FILLER) for _ in range(80)) for _ in range(per_doc)]
        chunks = generated_document(d, texts)
        # the fake's own function: the same vectors as over HTTP, without 10,000 requests
        vectors = [fake_embeddings.embed(t, DIMENSIONS) for t in texts]
        index.replace_document("c", f"d{d}", chunks, vectors)
    hybrid = HybridIndex(index, _embedder(server))
    timings = []
    for _ in range(LATENCY_QUERIES):
        query = " ".join(rng.choice(FILLER) for _ in range(8))
        began = time.perf_counter()
        hybrid.search(["c"], query, 20)
        timings.append((time.perf_counter() - began) * 1000)
    quantiles = statistics.quantiles(timings, n=100)
    return quantiles[49], quantiles[94]


def bench_hybrid() -> list[Row]:
    with FakeOpenAIServer() as server:
        server.embedding_dimensions = DIMENSIONS
        found = recalls(server)
        p50, p95 = latency_ms(server)
    return [
        (
            f"collections: recall@10 on the {LABELLED} labelled questions, words alone / "
            "vectors alone / hybrid (BM25 + vectors, RRF; fake embeddings: hashed bags of words)",
            f"{found['lexical']:.1%} / {found['vectors']:.1%} / {found['hybrid']:.1%}",
            "",
            "—",
        ),
        (
            "collections: recall@10 on the same questions with the fact's words replaced by "
            "synonyms no chunk holds, words alone / vectors alone / hybrid (the fake knows "
            "these synonyms; a real model's gain on real paraphrases is not measured)",
            f"{found['lexical paraphrased']:.1%} / {found['vectors paraphrased']:.1%}"
            f" / {found['hybrid paraphrased']:.1%}",
            "",
            "—",
        ),
        (
            f"collections: hybrid retrieval over {INDEX_CHUNKS} chunks with {DIMENSIONS}-"
            "dimension vectors (SQLite FTS5 + exact numpy cosine scan + the query's "
            "embeddings call to the loopback fake), p50 / p95",
            f"{p50:.1f} / {p95:.1f} ms",
            "",
            "—",
        ),
    ]


if __name__ == "__main__":
    for row in bench_hybrid():
        print(" | ".join(row))
