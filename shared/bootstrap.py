"""The composition root: builds every service from Settings, lazily, once.

It fills in the ``shared.ports.Services`` bundle the use cases work with.
Activities, HTTP handlers, devhost and tests all ask ``services()`` for what
they need. Nothing is built at import time (the Functions worker imports every
module while indexing); each adapter is built on first use and cached for the
life of the worker. Tests and devhost call ``configure(Settings(...))`` first.
"""

from __future__ import annotations

import gc
import threading
from functools import cache, cached_property
from typing import TYPE_CHECKING

from shared.adapters.documents.base import DocumentParser, Embedder, Index
from shared.adapters.fetch.base import Fetcher, LinkFetcher, SchemeFetcher
from shared.adapters.reasoning.base import Reasoner
from shared.adapters.search.base import SearchProvider
from shared.adapters.stores.base import MemoryStore, SessionStore
from shared.core.collection_models import BuiltinCatalog
from shared.core.config import Settings
from shared.tools.telemetry import exporters as telemetry

if TYPE_CHECKING:  # adapters are imported lazily, on first use
    from shared.adapters.identity import Authenticator
    from shared.adapters.search.embeddings import EmbeddingReranker
    from shared.adapters.search.tiers import SourceTiers


class AppServices:
    """``shared.ports.Services`` for one Settings: each adapter built on first use."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.RLock()
        telemetry.configure(settings)  # the first services of the process install the exporter
        one_blas_thread()

    @cached_property
    def sessions(self) -> SessionStore:
        with self._lock:
            if self.settings.use_cosmos:
                from shared.adapters.stores.cosmos import CosmosSessionStore

                timeout = self.settings.cosmos_read_timeout_seconds
                options = {"read_timeout": timeout} if timeout else None
                return CosmosSessionStore(self.settings, client_options=options)
            from shared.adapters.stores.sqlite import SqliteSessionStore

            return SqliteSessionStore(self.settings.data_dir / "sessions.sqlite3")

    @cached_property
    def memory(self) -> MemoryStore:
        with self._lock:
            if self.settings.use_blob:
                from shared.adapters.stores.blob import BlobMemoryStore

                return BlobMemoryStore(
                    self.settings, max_file_bytes=self.settings.memory_max_file_bytes
                )
            from shared.adapters.stores.filesystem import FilesystemMemoryStore

            return FilesystemMemoryStore(
                self.settings.data_dir / "memory",
                max_file_bytes=self.settings.memory_max_file_bytes,
            )

    @cached_property
    def collection_files(self) -> MemoryStore:
        """The memory store's technology, in its own container (or folder) for collections."""
        with self._lock:
            limit = self.settings.collection_max_file_bytes
            if self.settings.use_blob:
                from shared.adapters.stores.blob import BlobMemoryStore

                own = {"memory_container": self.settings.collections_container}
                return BlobMemoryStore(self.settings.model_copy(update=own), max_file_bytes=limit)
            from shared.adapters.stores.filesystem import FilesystemMemoryStore

            return FilesystemMemoryStore(
                self.settings.data_dir / "collections", max_file_bytes=limit
            )

    @cached_property
    def index(self) -> Index:
        """The teams' index, and the built-in collection's read-only file beside it."""
        from shared.adapters.documents.routed_index import RoutedIndex

        return RoutedIndex(self.team_index, {self.builtin_collection_id: lambda: self.corpus.index})

    @property
    def builtin_collection_id(self) -> str:
        from shared.adapters.search.corpus_sources import collection_id_for

        return collection_id_for(self.settings)

    def builtin_catalog(self) -> BuiltinCatalog:
        return self.corpus.catalog()

    def builtin_search(self) -> SearchProvider:
        return self.corpus

    @cached_property
    def team_index(self) -> Index:
        """The collections' index; hybrid (words and vectors) when an embedder is set."""
        with self._lock:
            index: Index
            if self.settings.use_cosmos:  # Cosmos DB full-text search in the same account
                from shared.adapters.documents.cosmos_index import CosmosIndex

                index = CosmosIndex(self.settings)
            else:
                from shared.adapters.documents.fts import SqliteIndex

                index = SqliteIndex(self.settings.data_dir / "collections.sqlite3")
            if self.embedder is None:
                return index
            from shared.adapters.documents.hybrid import HybridIndex

            return HybridIndex(index, self.embedder)

    @cached_property
    def embedder(self) -> Embedder | None:
        """Embeddings when EMBEDDING_MODEL and an LLM endpoint are set, else None."""
        if not (self.settings.embedding_model and self.settings.llm_configured):
            return None
        with self._lock:
            from shared.adapters.search.embeddings import OpenAIEmbeddings

            return OpenAIEmbeddings(self.settings)

    @cached_property
    def parser(self) -> DocumentParser:
        from shared.adapters.documents.parsing import LibraryParser

        return LibraryParser()

    @cached_property
    def corpus(self):
        with self._lock:
            from shared.adapters.search.builtin_corpus import BuiltinCorpus

            return BuiltinCorpus(self.settings)

    @cached_property
    def search(self) -> SearchProvider:
        with self._lock:
            from shared.adapters.search.providers import build_search

            return build_search(self.settings, corpus_factory=lambda: self.corpus)

    @cached_property
    def tiers(self) -> SourceTiers:
        """The source-tier table (SOURCE_TIERS_FILE over the shipped one), read once."""
        with self._lock:
            from shared.adapters.search.tiers import SourceTiers

            return SourceTiers.load(self.settings.source_tiers_file)

    @cached_property
    def reranker(self) -> EmbeddingReranker | None:
        """Embedding rerank when EMBEDDING_MODEL and an LLM endpoint are set, else None."""
        if not (self.settings.embedding_model and self.settings.llm_configured):
            return None
        with self._lock:
            from shared.adapters.search.embeddings import EmbeddingReranker

            return EmbeddingReranker(self.settings)

    @cached_property
    def web_fetcher(self) -> LinkFetcher:
        """The SSRF-guarded HTTP fetcher (pages for research, pages and links for a crawl)."""
        with self._lock:
            from shared.adapters.fetch.http import HttpFetcher

            return HttpFetcher(self.settings)

    @cached_property
    def fetcher(self) -> Fetcher:
        with self._lock:
            http = self.web_fetcher
            return SchemeFetcher({"http": http, "https": http, "corpus": self.corpus})

    @cached_property
    def reasoner(self) -> Reasoner:
        with self._lock:
            if self.settings.effective_reasoner == "llm":
                from shared.adapters.reasoning.llm import LLMReasoner

                return LLMReasoner(self.settings)
            from shared.adapters.reasoning.offline import OfflineReasoner

            return OfflineReasoner(self.corpus)

    def check_llm(self) -> list[dict]:
        """One tiny call per model role (``GET /api/health?check=llm``)."""
        from shared.adapters.reasoning.llm_check import check_models

        return check_models(self.settings)

    @cached_property
    def authenticator(self) -> Authenticator:
        """Who is calling, per AUTH_MODE (shared/adapters/identity.py); caches the token keys."""
        with self._lock:
            from shared.adapters.identity import Authenticator

            return Authenticator(self.settings)

    @cached_property
    def webhooks(self):
        with self._lock:
            from shared.adapters.webhooks import WebhookSender

            return WebhookSender(self.settings)

    def warm_up(self) -> None:
        """Pay the once-per-worker costs before a session has to.

        Building lazily keeps imports cheap for the Functions indexer, but the
        first activity of a cold worker would then wait for the openai import
        (≈ 0.7 s), the built-in collection's index, bs4 and the PDF fonts inside a research.
        ``python -m devhost serve`` calls this in the background at start;
        benchmarks call it before timing, as in a warm worker.
        """
        from shared.adapters.report.fonts import find_body_font, register_ttf_family
        from shared.tools.language import detect_language

        _ = self.search, self.fetcher, self.reasoner
        # the built-in collection is listed for everyone, whatever searches the web: its
        # file is built here (once per DATA_DIR) or opened; devhost warms up in the background,
        # so a request may still wait for it there, and the Functions worker has no start-up
        # hook: there the first request that needs the file pays the build
        _ = self.corpus.data
        faces = find_body_font(self.settings.pdf_font_path)
        if faces is not None:
            register_ttf_family(faces)
        detect_language("warm up the language profiles")
        # What warm-up loaded (modules, schemas, the collection, fonts: ~200k objects) lives
        # as long as the worker. Frozen, the collector's full passes stop walking it: one
        # cost ~0.2 s of CPU with the GIL held every few sessions, stalling every activity
        # of the process; now ~15 ms (bench.profile). Reference counting still frees them.
        gc.collect()
        gc.freeze()


@cache
def one_blas_thread() -> None:
    """numpy's BLAS (OpenBLAS) runs one thread in this process (once: the limit stays).

    A worker's concurrency is its activities. BLAS threads (one per core) spin-wait after each
    matrix product beside them: with the embedding model's products (a question's vector, the
    built-in collection's cosines), two worker processes spent 0.86 CPU-s per offline session
    against 0.37 with one BLAS thread, and took twice as long (``bench.load``, 150 sessions).
    numpy is imported first: the limit applies to the libraries loaded."""
    import numpy  # noqa: F401
    from threadpoolctl import ThreadpoolController

    ThreadpoolController().limit(limits=1, user_api="blas")


_services: AppServices | None = None
_guard = threading.Lock()


def configure(settings: Settings | None = None) -> AppServices:
    """Replace the process-wide services (devhost start-up, tests)."""
    global _services
    with _guard:
        _services = AppServices(settings or Settings())
        return _services


def services() -> AppServices:
    """The process-wide services, built from the environment on first use."""
    global _services
    if _services is None:
        with _guard:
            if _services is None:
                _services = AppServices(Settings())
    return _services
