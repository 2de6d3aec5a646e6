"""Semantic rerank with an embedding model, when ``EMBEDDING_MODEL`` is set.

The lexical pipeline (BM25 + RRF + domain diversity) always runs first; this
reorders its top results by cosine similarity between the query and each
result's title + snippet, using the same OpenAI-compatible endpoint as the
LLM reasoner (one embeddings call per rerank). If the endpoint fails, the
lexical order stands and the failure is logged: ranking quality degrades,
the search does not.
"""

from __future__ import annotations

import logging
import math

import openai

from shared.core.config import Settings
from shared.core.source_models import SearchResult
from shared.tools.llm_endpoint.client import build_openai_client
from shared.tools.llm_endpoint.usage import record_call
from shared.tools.telemetry import genai

log = logging.getLogger(__name__)


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


class EmbeddingReranker:
    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._client: openai.OpenAI | None = None

    def rerank(self, query: str, results: list[SearchResult]) -> list[SearchResult]:
        if len(results) < 2:
            return results
        model = self._settings.embedding_model or ""
        texts = [query] + [f"{r.title}\n{r.snippet}"[:2000] for r in results]
        system = genai.system_of(self._settings)
        with genai.model_call(system, model, "embeddings") as call:
            try:
                self._client = self._client or build_openai_client(self._settings)
                response = self._client.embeddings.create(model=model, input=texts)
            except openai.OpenAIError as exc:
                log.warning("embedding rerank skipped (%s): keeping the lexical order", exc)
                return results
            usage = getattr(response, "usage", None)
            tokens = getattr(usage, "prompt_tokens", 0) or 0
            call.record(tokens, 0, record_call(model, tokens, 0))
        vectors = [item.embedding for item in sorted(response.data, key=lambda d: d.index)]
        scored = [(_cosine(vectors[0], vec), i) for i, vec in enumerate(vectors[1:])]
        order = [i for _, i in sorted(scored, key=lambda pair: (-pair[0], pair[1]))]
        return [results[i] for i in order]
