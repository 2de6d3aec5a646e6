"""Embeddings from the LLM endpoint, when ``EMBEDDING_MODEL`` is set: rerank and hybrid search.

``OpenAIEmbeddings`` is the one client for the embeddings API (the same
OpenAI-compatible endpoint as the LLM reasoner): collections embed their chunks
at ingestion and each query at search time with it (the documents port's
``Embedder``), and the web search pipeline reranks with it. Inputs go in batches
of ``EMBEDDING_BATCH_SIZE``; every call is metered and traced like a chat call.
A failing endpoint raises ``EmbeddingsUnavailable`` and each caller keeps what
words alone give: ranking quality degrades, the search does not.

The reranker reorders the lexical pipeline's top results (BM25 + RRF + domain
diversity) by cosine similarity between the query and each result's title +
snippet (one embeddings call per rerank).
"""

from __future__ import annotations

import logging
import math

import openai

from shared.core.config import Settings
from shared.core.errors import EmbeddingsUnavailable
from shared.core.source_models import SearchResult
from shared.tools.llm_endpoint.client import build_openai_client
from shared.tools.llm_endpoint.usage import record_call
from shared.tools.telemetry import genai

log = logging.getLogger(__name__)
MAX_INPUT_CHARS = 8000  # ~2,000 tokens: well under the models' 8,191-token input cap


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


class OpenAIEmbeddings:
    """``Embedder`` over the configured endpoint's embeddings API."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._client: openai.OpenAI | None = None

    @property
    def model(self) -> str:
        return self._settings.embedding_model or ""

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order; ``EmbeddingsUnavailable`` if any batch fails."""
        size = self._settings.embedding_batch_size
        vectors: list[list[float]] = []
        for start in range(0, len(texts), size):
            vectors += self._batch([t[:MAX_INPUT_CHARS] for t in texts[start : start + size]])
        return vectors

    def _batch(self, texts: list[str]) -> list[list[float]]:
        system = genai.system_of(self._settings)
        with genai.model_call(system, self.model, "embeddings") as call:
            try:
                self._client = self._client or build_openai_client(self._settings)
                response = self._client.embeddings.create(model=self.model, input=texts)
            except openai.OpenAIError as exc:
                raise EmbeddingsUnavailable(f"embeddings call failed: {exc}") from exc
            usage = getattr(response, "usage", None)
            tokens = getattr(usage, "prompt_tokens", 0) or 0
            call.record(tokens, 0, record_call(self.model, tokens, 0))
        data = sorted(response.data, key=lambda d: d.index)
        if len(data) != len(texts):
            raise EmbeddingsUnavailable(f"{len(data)} embeddings for {len(texts)} inputs")
        return [list(item.embedding) for item in data]


class EmbeddingReranker:
    def __init__(self, settings: Settings) -> None:
        self._embeddings = OpenAIEmbeddings(settings)

    def rerank(self, query: str, results: list[SearchResult]) -> list[SearchResult]:
        if len(results) < 2:
            return results
        texts = [query] + [f"{r.title}\n{r.snippet}"[:2000] for r in results]
        try:
            vectors = self._embeddings.embed(texts)
        except EmbeddingsUnavailable as exc:
            log.warning("embedding rerank skipped (%s): keeping the lexical order", exc)
            return results
        scored = [(_cosine(vectors[0], vec), i) for i, vec in enumerate(vectors[1:])]
        order = [i for _, i in sorted(scored, key=lambda pair: (-pair[0], pair[1]))]
        return [results[i] for i in order]
