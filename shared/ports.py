"""The ports a use case works with, bundled as ``Services``.

Use cases (``shared/usecases/research/``, ``shared/usecases/sessions.py``, ...) take a
``Services`` and call its ports; they never build an adapter and never import
the composition root. ``shared/bootstrap.py`` fills the bundle in from
``Settings``, lazily; a test may hand a use case any object with these
attributes.
"""

from __future__ import annotations

from typing import Protocol

from shared.adapters.documents.base import DocumentParser, Embedder, Index
from shared.adapters.fetch.base import Fetcher, LinkFetcher
from shared.adapters.identity import Authenticator
from shared.adapters.reasoning.base import Reasoner
from shared.adapters.search.base import Reranker, SearchProvider
from shared.adapters.search.tiers import SourceTiers
from shared.adapters.stores.base import MemoryStore, SessionStore
from shared.adapters.webhooks import WebhookSender
from shared.core.collection_models import BuiltinCatalog
from shared.core.config import Settings


class Services(Protocol):
    """Every port of the app, read-only; ``reranker`` is None without an embedding model."""

    @property
    def settings(self) -> Settings: ...

    @property
    def sessions(self) -> SessionStore: ...

    @property
    def memory(self) -> MemoryStore: ...

    @property
    def search(self) -> SearchProvider: ...

    @property
    def tiers(self) -> SourceTiers: ...

    @property
    def reranker(self) -> Reranker | None: ...

    @property
    def fetcher(self) -> Fetcher: ...

    @property
    def reasoner(self) -> Reasoner: ...

    @property
    def webhooks(self) -> WebhookSender: ...

    @property
    def authenticator(self) -> Authenticator: ...

    @property
    def collection_files(self) -> MemoryStore:
        """Collections' records and stored originals, one folder per collection."""
        ...

    @property
    def index(self) -> Index:
        """Every collection's chunks: the teams' index and the built-in collection's file."""
        ...

    @property
    def builtin_collection_id(self) -> str:
        """The built-in, read-only collection's id (``python-docs``): known without loading it."""
        ...

    def builtin_catalog(self) -> BuiltinCatalog:
        """The built-in collection and its documents (loads the corpus on first use)."""
        ...

    def builtin_search(self) -> SearchProvider:
        """The built-in collection's own search, its documents weighed whole (loads it)."""
        ...

    @property
    def embedder(self) -> Embedder | None:
        """Chunk and query embeddings (hybrid search); None without EMBEDDING_MODEL."""
        ...

    @property
    def parser(self) -> DocumentParser: ...

    @property
    def web_fetcher(self) -> LinkFetcher:
        """http(s) only, behind the SSRF guard; gives an HTML page's links (a crawl)."""
        ...
