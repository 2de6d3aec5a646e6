"""Collections: ingestion throughput through devhost, retrieval latency and recall@10.

- Ingestion: ``INGEST_DOCS`` generated Markdown documents uploaded over HTTP to a
  devhost (batches of ``COLLECTION_MAX_FILES_PER_REQUEST``), timed from the first
  upload until no document is queued: documents/s and chunks/s of the whole path
  (store, orchestration, one activity per document, parse, chunk, index).
- Retrieval: ``INDEX_CHUNKS`` generated chunks in the SQLite FTS5 index, then
  ``QUERIES`` searches of 8 words each, p50 / p95. The words are common on purpose
  (a worst case: long posting lists), so this is an upper bound for real questions.
- Recall@10: ``LABELLED`` documents each hold one fact in words no other document
  uses, among shared filler; a question names three of the fact's words in another
  order with filler of its own, and counts when its document is among the 10
  documents the collection search returns.
"""

from __future__ import annotations

import random
import statistics
import time

import httpx

from bench.results import Row, verdict
from bench.scenarios import offline_settings, temp_dir
from devhost.host import DevHost
from shared.adapters.documents.collection_search import CollectionSearch
from shared.adapters.documents.fts import SqliteIndex
from shared.core.collection_models import Chunk
from shared.core.limits import COLLECTION_MAX_FILES_PER_REQUEST

INGEST_DOCS = 200
INDEX_CHUNKS = 10_000
QUERIES = 300
LABELLED = 300
RECALL_TARGET = 0.9
FILLER = [f"word{n}" for n in range(400)]


def _paragraph(rng: random.Random, words: int = 60) -> str:
    return " ".join(rng.choice(FILLER) for _ in range(words)) + "."


def _document(rng: random.Random, n: int) -> bytes:
    sections = [f"## Section {s}\n\n{_paragraph(rng)}\n\n{_paragraph(rng)}" for s in range(4)]
    return (f"# Document {n}\n\n" + "\n\n".join(sections)).encode()


def ingestion() -> tuple[float, float, int]:
    """(documents/s, chunks/s, chunks) of INGEST_DOCS documents through devhost."""
    rng = random.Random(33)
    files = [(f"doc-{n:04}.md", _document(rng, n)) for n in range(INGEST_DOCS)]
    host = DevHost(offline_settings(temp_dir()), port=0).start()
    try:
        with httpx.Client(base_url=host.url, timeout=60) as http:
            cid = http.post("/api/collections", json={"name": "bench"}).json()["collection_id"]
            began = time.perf_counter()
            for start in range(0, len(files), COLLECTION_MAX_FILES_PER_REQUEST):
                batch = files[start : start + COLLECTION_MAX_FILES_PER_REQUEST]
                parts = [("file", (name, data, "text/markdown")) for name, data in batch]
                headers = {"X-Requested-With": "bench"}
                http.post(f"/api/collections/{cid}/documents", files=parts, headers=headers)
            while (view := http.get(f"/api/collections/{cid}").json())["progress"]["queued"]:
                time.sleep(0.05)
            seconds = time.perf_counter() - began
    finally:
        host.stop()
    return INGEST_DOCS / seconds, view["chunks"] / seconds, view["chunks"]


def generated_document(d: int, texts: list[str]) -> list[Chunk]:
    """Generated document ``d`` of collection ``c``, one chunk per text: the latency rows' index."""
    return [
        Chunk(
            id=f"d{d}-{o}",
            collection_id="c",
            document_id=f"d{d}",
            ordinal=o,
            title=f"Doc {d}",
            origin=f"d{d}.md",
            text=text,
        )
        for o, text in enumerate(texts)
    ]


def retrieval_ms() -> tuple[float, float]:
    rng = random.Random(10)
    index = SqliteIndex(temp_dir() / "bench-index.sqlite3")
    per_doc = 10
    for d in range(INDEX_CHUNKS // per_doc):
        chunks = generated_document(d, [_paragraph(rng, 80) for _ in range(per_doc)])
        index.replace_document("c", f"d{d}", chunks)
    timings = []
    for _ in range(QUERIES):
        query = " ".join(rng.choice(FILLER) for _ in range(8))
        began = time.perf_counter()
        index.search(["c"], query, 20)
        timings.append((time.perf_counter() - began) * 1000)
    quantiles = statistics.quantiles(timings, n=100)
    return quantiles[49], quantiles[94]


def labelled() -> list[tuple[Chunk, list[str], str]]:
    """LABELLED one-chunk documents: (chunk, its fact's words, the question asking for it)."""
    rng = random.Random(7)
    cases = []
    for d in range(LABELLED):
        fact = [f"fact{d}x{k}" for k in range(5)]
        text = f"{_paragraph(rng)} The record says {' '.join(fact)}. {_paragraph(rng)}"
        chunk = Chunk(
            id=f"d{d}-0",
            collection_id="c",
            document_id=f"d{d}",
            ordinal=0,
            title=f"Doc {d}",
            origin=f"d{d}.md",
            text=text,
        )
        asked = rng.sample(fact, 3)
        cases.append((chunk, fact, " ".join([*asked, *rng.sample(FILLER, 5)])))
    return cases


def recall(search: CollectionSearch, questions: list[tuple[str, str]]) -> float:
    """The share of (document id, question) whose document is among the 10 results."""
    found = 0
    for doc, question in questions:
        urls = [r.url for r in search.search(question, 10)]
        found += any(url.split("/documents/")[1].split("#")[0] == doc for url in urls)
    return found / len(questions)


def recall_at_10() -> float:
    index = SqliteIndex(temp_dir() / "bench-recall.sqlite3")
    cases = labelled()
    for chunk, _, _ in cases:
        index.replace_document("c", chunk.document_id, [chunk])
    return recall(CollectionSearch(index, ["c"]), [(c.document_id, q) for c, _, q in cases])


def bench_collections() -> list[Row]:
    docs_s, chunks_s, chunks = ingestion()
    p50, p95 = retrieval_ms()
    recall = recall_at_10()
    return [
        (
            f"collections: ingestion of {INGEST_DOCS} Markdown documents through devhost",
            f"{docs_s:.1f} documents/s, {chunks_s:.0f} chunks/s ({chunks} chunks)",
            "",
            "—",
        ),
        (
            f"collections: retrieval over {INDEX_CHUNKS} chunks (SQLite FTS5), p50 / p95; "
            f"8-word queries of a {len(FILLER)}-word vocabulary (each word in ~1 chunk of 5)",
            f"{p50:.1f} / {p95:.1f} ms",
            "",
            "—",
        ),
        (
            f"collections: recall@10 on {LABELLED} labelled questions",
            f"{recall:.1%}",
            f"≥ {RECALL_TARGET:.0%}",
            verdict(recall >= RECALL_TARGET),
        ),
    ]


if __name__ == "__main__":
    for row in bench_collections():
        print(" | ".join(row))
