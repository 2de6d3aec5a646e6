"""A Cosmos DB for NoSQL gateway on loopback HTTP that speaks full-text search.

The Cosmos stand-in the other tests use has no ``FullText*`` functions, and Cosmos
DB has no local emulator of them, so this fake plays the documented contract for
the few requests the index adapter makes (shared/adapters/documents/cosmos_index.py):
the account and container reads the SDK starts with, point reads, upserts and
deletes of items,
and queries within one partition. A full-text query must have the documented shape,
``SELECT TOP n ... WHERE FullTextContainsAny(c.text, "t1", ...) ORDER BY RANK
FullTextScore(c.text, "t1", ...)`` with the same terms in both; it is answered with
the items holding any term, best first by how often the terms occur (BM25's order
for such small texts). A hybrid query must have the documented shape too,
``SELECT TOP n ... FROM c ORDER BY RANK RRF(FullTextScore(c.text, "t1", ...),
VectorDistance(c.embedding, @vector))`` with the vector as a parameter; it is
answered as documented: the full-text ranking and the vector ranking (cosine, the
container's distance function, over the items that have an ``embedding``) fused by
reciprocal rank (k = 60), every item of the partition eligible. Anything else is a
400, as Cosmos answers a query it cannot parse. Every query text is recorded, so a
test can read what was asked.

Transactional batches follow the documented contract: a POST of a JSON array of
operations (``Upsert``, ``Create``, ``Delete``...) on the container's docs with
``x-ms-cosmos-is-batch-request`` and ``x-ms-cosmos-batch-atomic``, all in the
partition of the request's partition key, at most 100 operations (else 400); they
apply all or nothing (a failing operation gets its own status, every other 424, and
the response is 207 with nothing changed), and a reader never sees half a batch.
Each write request (a batch or a single item) is recorded in ``writes``; a test that
sets ``pause_writes`` holds the writer after each applied write until it calls
``resume()``, so a reader can run between two writes without any sleep.
"""

from __future__ import annotations

import json
import math
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FULL_TEXT = re.compile(
    r"^SELECT TOP (?P<top>\d+) (?P<fields>[\w., ]+) FROM c"
    r" WHERE FullTextContainsAny\(c\.text, (?P<terms>(?:\"\w+\"(?:, )?)+)\)"
    r" ORDER BY RANK FullTextScore\(c\.text, (?P<scored>(?:\"\w+\"(?:, )?)+)\)$"
)
HYBRID = re.compile(
    r"^SELECT TOP (?P<top>\d+) (?P<fields>[\w., ]+) FROM c"
    r" ORDER BY RANK RRF\(FullTextScore\(c\.text, (?P<terms>(?:\"\w+\"(?:, )?)+)\),"
    r" VectorDistance\(c\.embedding, @vector\)\)$"
)
RRF_K = 60  # the documented RRF constant
BY_DOCUMENT = re.compile(
    r"^SELECT (?P<fields>[\w., ]+) FROM c WHERE c\.document_id = @document_id$"
)
ALL = re.compile(r"^SELECT (?P<fields>[\w., ]+) FROM c$")
HEADS = 'SELECT c.document_id, c.generation, c.kind FROM c WHERE c.kind = "head"'
BATCH_MAX_OPERATIONS = 100
CONTAINER = {
    "id": "chunks",
    "_rid": "cGjbAA==",
    "_self": "dbs/cGjbAA==/colls/cGjbAA==/",
    "partitionKey": {"paths": ["/collection_id"], "kind": "Hash", "version": 2},
}


class FullTextCosmos:
    def __init__(self) -> None:
        self.items: dict[tuple[str, str], dict] = {}  # (partition, id) -> item
        self.queries: list[str] = []
        self.writes: list[list[dict]] = []  # each write request's operations
        self.pause_writes = False
        self.written = threading.Semaphore(0)  # released after each write while paused
        self._go_on = threading.Semaphore(0)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.endpoint = f"http://127.0.0.1:{self._server.server_address[1]}/"

    def __enter__(self) -> FullTextCosmos:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- what the gateway does ------------------------------------------------------

    def resume(self) -> None:
        """Let the writer held after its last write go on."""
        self._go_on.release()

    def batch(self, partition: str, operations: list[dict]) -> tuple[int, list[dict]]:
        if not 0 < len(operations) <= BATCH_MAX_OPERATIONS:
            return 400, [{"code": "BadRequest", "message": "a batch holds 1 to 100 operations"}]
        with self._lock:
            items = dict(self.items)
            results = [_apply(items, partition, op) for op in operations]
            failed = any(r["statusCode"] >= 400 for r in results)
            if failed:
                results = [r if r["statusCode"] >= 400 else {"statusCode": 424} for r in results]
            else:
                self.items = items
        if not failed:
            self._written(operations)
        return (207 if failed else 200), results

    def _written(self, operations: list[dict]) -> None:
        self.writes.append(operations)
        if self.pause_writes:
            self.written.release()
            self._go_on.acquire()

    def query(self, partition: str, text: str, parameters: dict[str, Any]) -> list[dict]:
        self.queries.append(text)
        with self._lock:
            mine = [item for (p, _), item in sorted(self.items.items()) if p == partition]
        if match := ALL.match(text):
            return [_project(i, match["fields"]) for i in mine]
        if text == HEADS:
            return [
                _project(i, "document_id, generation, kind")
                for i in mine
                if i.get("kind") == "head"
            ]
        if match := BY_DOCUMENT.match(text):
            wanted = parameters["@document_id"]
            return [_project(i, match["fields"]) for i in mine if i["document_id"] == wanted]
        if match := FULL_TEXT.match(text):
            terms, scored = _terms(match["terms"]), _terms(match["scored"])
            if terms != scored:
                raise ValueError("FullTextContainsAny and FullTextScore name different terms")
            hits = [(_score(i.get("text"), terms), i) for i in mine]
            hits = sorted((h for h in hits if h[0] > 0), key=lambda h: -h[0])
            return [_project(i, match["fields"]) for _, i in hits[: int(match["top"])]]
        if match := HYBRID.match(text):
            return _hybrid(mine, _terms(match["terms"]), parameters["@vector"], match)
        raise ValueError(f"unsupported query: {text}")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                path = self.path.rstrip("/")
                if path == "":
                    here = {"name": "local", "databaseAccountEndpoint": fake.endpoint}
                    self._send(
                        200,
                        {
                            "id": "fake",
                            "_rid": "fake",
                            "writableLocations": [here],
                            "readableLocations": [here],
                            "enableMultipleWriteLocations": False,
                            "userConsistencyPolicy": {"defaultConsistencyLevel": "Session"},
                        },
                    )
                elif path.endswith("/pkranges"):
                    ranges = [{"id": "0", "minInclusive": "", "maxExclusive": "FF"}]
                    self._send(200, {"PartitionKeyRanges": ranges, "_count": 1})
                elif "/colls/" in path and "/docs" not in path:
                    self._send(200, CONTAINER)
                elif "/docs/" in path:  # a point read, in the request's partition
                    partition = json.loads(
                        self.headers.get("x-ms-documentdb-partitionkey", "[null]")
                    )[0]
                    with fake._lock:
                        item = fake.items.get((partition, path.rsplit("/", 1)[-1]))
                    if item:
                        self._send(200, item)
                    else:
                        self._send(404, {"code": "NotFound"})
                else:
                    self._send(404, {"code": "NotFound", "message": path})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
                partition = json.loads(self.headers.get("x-ms-documentdb-partitionkey", "[null]"))[
                    0
                ]
                if self.headers.get("x-ms-cosmos-is-batch-request", "").lower() == "true":
                    status, results = fake.batch(partition, body)
                    self._send(status, results)
                    return
                if self.headers.get("x-ms-documentdb-isquery", "").lower() == "true":
                    parameters = {p["name"]: p["value"] for p in body.get("parameters", [])}
                    try:
                        found = fake.query(partition, body["query"], parameters)
                    except ValueError as exc:
                        self._send(400, {"code": "BadRequest", "message": str(exc)})
                        return
                    self._send(200, {"_rid": "cGjbAA==", "Documents": found, "_count": len(found)})
                    return
                with fake._lock:
                    fake.items[(body["collection_id"], body["id"])] = body
                fake._written([{"operationType": "Upsert", "resourceBody": body}])
                self._send(201, body)

            def do_DELETE(self) -> None:
                item_id = self.path.rstrip("/").rsplit("/", 1)[-1]
                partition = json.loads(self.headers.get("x-ms-documentdb-partitionkey", "[null]"))[
                    0
                ]
                with fake._lock:
                    gone = fake.items.pop((partition, item_id), None)
                if gone:
                    fake._written([{"operationType": "Delete", "id": item_id}])
                self._send(204 if gone else 404, None if gone else {"code": "NotFound"})

            def _send(self, status: int, body: Any) -> None:
                data = b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("x-ms-request-charge", "1")
                self.send_header("x-ms-session-token", "0:1#1")
                self.end_headers()
                self.wfile.write(data)

        return Handler


def _apply(items: dict[tuple[str, str], dict], partition: str, op: dict) -> dict:
    """One batch operation on ``items`` (a copy), with the status Cosmos gives it."""
    kind, body = op.get("operationType"), op.get("resourceBody") or {}
    if kind in ("Create", "Upsert", "Replace"):
        if body.get("collection_id") != partition:
            return {"statusCode": 400}  # every operation is in the batch's partition
        key = (partition, body["id"])
        if (kind == "Create" and key in items) or (kind == "Replace" and key not in items):
            return {"statusCode": 409 if kind == "Create" else 404}
        created = key not in items
        items[key] = body
        return {"statusCode": 201 if created else 200, "resourceBody": body}
    if kind == "Delete":
        return {"statusCode": 204 if items.pop((partition, op["id"]), None) else 404}
    if kind == "Read":
        found = items.get((partition, op["id"]))
        return {"statusCode": 200, "resourceBody": found} if found else {"statusCode": 404}
    return {"statusCode": 400}


def _terms(text: str) -> list[str]:
    return re.findall(r"\"(\w+)\"", text)


def _score(text: str | None, terms: list[str]) -> int:
    words = re.findall(r"\w+", (text or "").lower())
    return sum(words.count(t) for t in terms)


def _hybrid(items: list[dict], terms: list[str], vector: list[float], match: re.Match) -> list:
    if not isinstance(vector, list) or not vector:
        raise ValueError("VectorDistance needs the query vector as an array parameter")
    lexical = sorted(
        (i for i in items if _score(i.get("text"), terms) > 0),
        key=lambda i: -_score(i.get("text"), terms),
    )
    with_vectors = [i for i in items if isinstance(i.get("embedding"), list)]
    semantic = sorted(with_vectors, key=lambda i: -_cosine(vector, i["embedding"]))
    fused: dict[str, float] = {}
    for ranking in (lexical, semantic):
        for rank, item in enumerate(ranking, start=1):
            fused[item["id"]] = fused.get(item["id"], 0.0) + 1.0 / (RRF_K + rank)
    by_id = {i["id"]: i for i in items}
    best = sorted(fused, key=lambda item_id: -fused[item_id])[: int(match["top"])]
    return [_project(by_id[i], match["fields"]) for i in best]


def _cosine(a: list[float], b: list[float]) -> float:
    if len(a) != len(b):
        raise ValueError("a vector of another dimension than the container's policy")
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def _project(item: dict, fields: str) -> dict:
    names = [f.strip().removeprefix("c.") for f in fields.split(",")]
    return {n: item.get(n) for n in names}
