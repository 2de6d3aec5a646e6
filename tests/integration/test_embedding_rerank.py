"""Embedding rerank against an OpenAI-protocol embeddings endpoint on loopback."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from shared.adapters.search.embeddings import EmbeddingReranker
from shared.bootstrap import AppServices
from shared.core.config import Settings
from shared.core.payloads import SelectSourcesIn
from shared.core.source_models import SearchResult
from shared.tools.llm_endpoint.usage import metered
from shared.usecases.research.search_steps import select_sources

VOCABULARY = ("context", "manager", "loop", "iterator")


class _Embeddings(BaseHTTPRequestHandler):
    fail = False
    requests: list[dict] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "body": body})
        if type(self).fail:
            self.send_response(500)
            self.end_headers()
            return
        data = [
            {
                "object": "embedding",
                "index": i,
                "embedding": [t.lower().count(w) for w in VOCABULARY],
            }
            for i, t in enumerate(body["input"])
        ]
        payload = {
            "object": "list",
            "data": data,
            "model": body["model"],
            "usage": {"prompt_tokens": 11, "total_tokens": 11},
        }
        raw = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def embeddings_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Embeddings)
    _Embeddings.fail, _Embeddings.requests = False, []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _results() -> list[SearchResult]:
    return [
        SearchResult(
            url="https://a.example/loops", title="For loops", snippet="loop iterator loop"
        ),
        SearchResult(
            url="https://b.example/ctx", title="Context manager", snippet="context manager"
        ),
    ]


def _reranker(url: str) -> EmbeddingReranker:
    return EmbeddingReranker(
        Settings(
            openai_base_url=url, openai_api_key="test", embedding_model="text-embedding-3-small"
        )
    )


def test_semantically_closest_result_moves_first_and_usage_is_metered(embeddings_server):
    with metered() as meter:
        ranked = _reranker(embeddings_server).rerank("how does a context manager work", _results())
    assert [r.url for r in ranked] == ["https://b.example/ctx", "https://a.example/loops"]
    request = _Embeddings.requests[0]
    assert request["path"].endswith("/embeddings")
    assert request["body"]["model"] == "text-embedding-3-small"
    assert meter.usage.prompt_tokens == 11


def test_a_failing_endpoint_keeps_the_lexical_order(embeddings_server):
    _Embeddings.fail = True
    ranked = _reranker(embeddings_server).rerank("context manager", _results())
    assert [r.url for r in ranked] == ["https://a.example/loops", "https://b.example/ctx"]


@pytest.mark.parametrize(
    ("providers", "reranked"),
    [(["tavily", "tavily"], False), (["searxng", "searxng"], True), (["tavily", "searxng"], True)],
)
def test_results_a_provider_ranked_already_are_not_reranked(
    embeddings_server, tmp_path, providers: list[str], reranked: bool
):
    """The spec's rule: semantic rerank for SearXNG's results, not for Tavily's."""
    svc = AppServices(
        Settings(
            data_dir=tmp_path,
            reasoner="offline",
            search_provider="local",
            openai_base_url=embeddings_server,
            openai_api_key="test",
            embedding_model="text-embedding-3-small",
        )
    )
    results = [
        r.model_copy(update={"provider": p}) for r, p in zip(_results(), providers, strict=True)
    ]

    out = select_sources(svc, SelectSourcesIn(query="context manager", result_lists=[results]))

    assert bool(_Embeddings.requests) is reranked
    assert {r.url for r in out.selected} == {r.url for r in results}
